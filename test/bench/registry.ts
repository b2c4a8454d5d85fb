// The live tool registry against the naive mode (FAE_TOOL_DISCOVERY=list:
// list and read every tool at each step of a turn), for 0, 10 and 50 tools
// and 0 and 2 ms per daemon call. Both faes run in the same process and
// take messages alternately; figures are medians. A message is a full
// turn: the model calls `list`, then answers in plain text.
import { startCountedFae } from './counted-fae.js';
import type { BenchAgent } from './counted-fae.js';
import { cell, header, ratio, sideBySide } from './side-by-side.js';
import { canCollectGarbage, settledHeapUsed } from '../support/garbage.js';

const TOOL_COUNTS = [0, 10, 50];
const LATENCIES_MS = [0, 2];
const LONG_RUN = 500;

const HEADER = header(['follow', 'list', 'floor']);

const compare = async (toolCount: number, latencyMs: number) => {
  const [follow] = await sideBySide(`${toolCount} tools, ${latencyMs} ms per daemon call`, latencyMs, [
    { label: 'follow', start: () => startCountedFae(toolCount, {}) },
    { label: 'list', start: () => startCountedFae(toolCount, { FAE_TOOL_DISCOVERY: 'list' }) },
    { label: 'floor', start: () => startCountedFae(0, {}, 'floor') },
  ]);
  return follow;
};

/**
 * One agent's 500 messages: the time they take and the heap growth over
 * them, in MB (each reading after full collections and CapTP's drops).
 */
const longRun = async (env: Record<string, string>, agent: BenchAgent, gcImports: boolean) => {
  const fae = await startCountedFae(50, env, agent, { gcImports });
  const heapBefore = await settledHeapUsed();
  const start = performance.now();
  for (let i = 0; i < LONG_RUN; i += 1) {
    // One message after the other, as mail arrives.
    await fae.message();
  }
  const seconds = (performance.now() - start) / 1000;
  const heapGrowth = ((await settledHeapUsed()) - heapBefore) / 1e6;
  await fae.stop();
  return { seconds, heapGrowth };
};

export const run = async () => {
  console.log('follow: fae as it is; list: FAE_TOOL_DISCOVERY=list (every tool listed and read at each step);');
  console.log('ratio: follow / list; floor: an agent that only reads, replies and dismisses (no model, no tools),');
  console.log('i.e. the local daemon\'s and CapTP\'s own share. Far calls: daemon calls plus calls on tools.');
  let budget: Record<string, number> | undefined;
  for (const toolCount of TOOL_COUNTS) {
    for (const latencyMs of LATENCIES_MS) {
      // One case at a time: they share the machine's timers.
      const medians = await compare(toolCount, latencyMs);
      if (toolCount === 50 && latencyMs === 2) budget = medians;
    }
  }
  const gcNote = canCollectGarbage ? '' : ' (no gc(): heap figures are rough)';
  console.log(`\n${LONG_RUN} messages, 50 tools, 0 ms per daemon call${gcNote}`);
  // As the real daemon runs it: CapTP keeps every presence a worker ever
  // imported, so any agent's heap grows with each message.
  const follow = await longRun({}, 'fae', false);
  // The slowest by far (every tool read at every step): run once, as the daemon is.
  const list = await longRun({ FAE_TOOL_DISCOVERY: 'list' }, 'fae', false);
  const floor = await longRun({}, 'floor', false);
  // With gcImports, CapTP lets go of what the agent dropped: what is left
  // is the agent's own growth (and what CapTP keeps anyway, see the floor).
  const followOwn = await longRun({}, 'fae', true);
  const floorOwn = await longRun({}, 'floor', true);
  console.log('heap: "as in the daemon" without gcImports, as the real daemon; "own growth" with gcImports, so CapTP');
  console.log('lets go of what the agent dropped. CapTP 4.5.1 keeps every call\'s answer even so: part of "own"');
  console.log('is CapTP\'s, per call made; compare the floor.');
  console.log(HEADER);
  console.log(`${'time (s)'.padEnd(46)}${cell(follow.seconds, 2)}${cell(list.seconds, 2)}${ratio(follow.seconds, list.seconds)}${cell(floor.seconds, 2)}`);
  console.log(`${'heap growth (MB), CapTP as in the daemon'.padEnd(46)}${cell(follow.heapGrowth, 1)}${cell(list.heapGrowth, 1)}${ratio(follow.heapGrowth, list.heapGrowth)}${cell(floor.heapGrowth, 1)}`);
  console.log(`${'heap growth (MB), gcImports (own growth)'.padEnd(46)}${cell(followOwn.heapGrowth, 1)}${'-'.padStart(9)}${'-'.padStart(7)}${cell(floorOwn.heapGrowth, 1)}`);

  if (budget !== undefined) {
    const check = (ok: boolean) => (ok ? 'met' : 'MISSED');
    console.log('\nbudget at 50 tools, 2 ms per call (issue 12), follow mode:');
    console.log(`  ≤ 2 guest-powers calls before the 1st model request: ${budget['guest-powers calls before 1st model request']} (${check(budget['guest-powers calls before 1st model request'] <= 2)})`);
    console.log(`  < 5 ms before the 1st model request: ${budget['arrival → 1st model request (ms)'].toFixed(2)} (${check(budget['arrival → 1st model request (ms)'] < 5)})`);
    const turn = budget['full turn: arrival → reply (ms)'];
    console.log(`  full turn < 10 ms: ${turn.toFixed(2)} (${check(turn < 10)})`);
    console.log(`  ≤ 10 guest-powers calls per message: ${budget['guest-powers calls per message']} (${check(budget['guest-powers calls per message'] <= 10)})`);
    const own = followOwn.heapGrowth;
    console.log(`  heap growth over ${LONG_RUN} messages < 10 MB, fae's own (gcImports): ${own.toFixed(1)} (${check(own < 10)}); with CapTP as in the daemon: ${follow.heapGrowth.toFixed(1)}; the floor: ${floorOwn.heapGrowth.toFixed(1)} own, ${floor.heapGrowth.toFixed(1)} as in the daemon`);
  }
};

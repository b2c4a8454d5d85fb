// The live tool registry against the naive mode (FAE_TOOL_DISCOVERY=list:
// list and read every tool at each step of a turn), for 0, 10 and 50 tools
// and 0 and 2 ms per daemon call. Both faes run in the same process and
// take messages alternately; figures are medians. A message is a full
// turn: the model calls `list`, then answers in plain text.
import { startCountedFae } from './counted-fae.js';
import type { BenchAgent, MessageFigures } from './counted-fae.js';
import { canCollectGarbage, settledHeapUsed } from '../support/garbage.js';

const TOOL_COUNTS = [0, 10, 50];
const LATENCIES_MS = [0, 2];
const WARM_UP = 5;
const ROUNDS = 25;
const LONG_RUN = 500;

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

type Row = readonly [string, (figures: MessageFigures) => number, number];

const ROWS: readonly Row[] = [
  ['guest-powers calls before 1st model request', f => f.beforeFirst.guest, 0],
  ['far calls before 1st model request', f => f.beforeFirst.far, 0],
  ['guest-powers calls per message', f => f.perMessage.guest, 0],
  ['far calls per message', f => f.perMessage.far, 0],
  ['arrival → 1st model request (ms)', f => f.toFirstMs, 2],
  ['full turn: arrival → reply (ms)', f => f.turnMs, 2],
  ['arrival → dismissal (ms)', f => f.doneMs, 2],
];

const cell = (value: number, digits: number) => value.toFixed(digits).padStart(9);
const ratio = (a: number, b: number) => (b === 0 ? (a === 0 ? '1.00' : '∞') : (a / b).toFixed(2)).padStart(7);

const HEADER = `${'figure'.padEnd(46)}${'follow'.padStart(9)}${'list'.padStart(9)}${'ratio'.padStart(7)}${'floor'.padStart(9)}`;

const compare = async (toolCount: number, latencyMs: number) => {
  const agents = {
    follow: await startCountedFae(toolCount, {}),
    list: await startCountedFae(toolCount, { FAE_TOOL_DISCOVERY: 'list' }),
    floor: await startCountedFae(0, {}, 'floor'),
  };
  const figures = { follow: [] as MessageFigures[], list: [] as MessageFigures[], floor: [] as MessageFigures[] };
  const kinds = ['follow', 'list', 'floor'] as const;
  for (const kind of kinds) agents[kind].daemon.setLatency(latencyMs);
  for (let round = 0; round < WARM_UP + ROUNDS; round += 1) {
    for (const kind of kinds) {
      // Alternately, one message at a time, so all see the same machine.
      const figure = await agents[kind].message();
      if (round >= WARM_UP) figures[kind].push(figure);
    }
  }
  await Promise.all(kinds.map(kind => agents[kind].stop()));
  console.log(`\n${toolCount} tools, ${latencyMs} ms per daemon call (medians of ${ROUNDS} messages each)`);
  console.log(HEADER);
  const medians: Record<string, number> = {};
  for (const [label, pick, digits] of ROWS) {
    const [f, l, floor] = kinds.map(kind => median(figures[kind].map(pick)));
    medians[label] = f;
    console.log(`${label.padEnd(46)}${cell(f, digits)}${cell(l, digits)}${ratio(f, l)}${cell(floor, digits)}`);
  }
  return medians;
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

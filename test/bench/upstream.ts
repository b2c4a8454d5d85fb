// Part 7 of issue 23: fae no slower than upstream fae per turn. Side by
// side with upstream's own agent (upstream-fae.ts; optional, as nothing of
// upstream is in this repository), at 0, 10 and 50 tools and no daemon
// latency, each in its own local daemon (February's dialect, upstream's),
// both on the same zero-latency model (bench-model.ts): a message is a
// full turn, `list` and then the answer (upstream sends it with its `send`
// tool and dismisses the message with `dismiss`, as its prompt asks; fae
// replies and dismisses on its own).
import { startCountedFae } from './counted-fae.js';
import { sideBySide } from './side-by-side.js';
import { loadUpstreamFae, UPSTREAM_ENV, UPSTREAM_HOW_TO } from './upstream-fae.js';

const TOOL_COUNTS = [0, 10, 50];
/** The tool counts the target holds at (issue 23, part 7). */
const TARGET_COUNTS = [0, 10];
const TURN = 'full turn: arrival → reply (ms)';

export const benchUpstream = async () => {
  const root = process.env[UPSTREAM_ENV];
  if (root === undefined || root === '') {
    console.log(`skipped: the side-by-side with upstream fae needs ${UPSTREAM_HOW_TO}`);
    return;
  }
  const make = await loadUpstreamFae(root);
  console.log(`fae against upstream fae from ${root}; ratio: fae / upstream; floor: an agent that only reads,`);
  console.log('replies and dismisses (the local daemon\'s own share). Upstream\'s console output is dropped.');
  const verdicts: string[] = [];
  for (const toolCount of TOOL_COUNTS) {
    // One case at a time: they share the machine's timers.
    const [fae, upstream] = await sideBySide(`${toolCount} tools, 0 ms per daemon call`, 0, [
      { label: 'fae', start: () => startCountedFae(toolCount, {}) },
      { label: 'upstream', start: () => startCountedFae(toolCount, {}, { upstream: make }) },
      { label: 'floor', start: () => startCountedFae(0, {}, 'floor') },
    ]);
    const times = fae[TURN] / upstream[TURN];
    const target = TARGET_COUNTS.includes(toolCount) ? ` (target ≤ 1: ${times <= 1 ? 'met' : 'MISSED'})` : '';
    verdicts.push(`  ${toolCount} tools: ${times.toFixed(2)} times upstream's full turn${target}`);
  }
  console.log('\nfae per turn against upstream fae (issue 23, part 7):');
  for (const verdict of verdicts) console.log(verdict);
};

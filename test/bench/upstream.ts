// Part 7 of issue 23: fae no slower than upstream fae per turn. Side by
// side with upstream's own agent (upstream-fae.ts; optional, as nothing of
// upstream is in this repository), at 0, 10 and 50 tools and no daemon
// latency, each in its own local daemon (February's dialect, upstream's),
// both on the same zero-latency model (bench-model.ts): a message is a
// full turn, `list` and then the answer (upstream sends it with its `send`
// tool and dismisses the message with `dismiss`, as its prompt asks; fae
// replies and dismisses on its own).
//
// Each case runs twice: over the first turns of fresh agents (messages 6
// to 30), and once both are warm (messages 301 to 400). The target is
// judged warm, where a fae spends its life serving mail; the first turns
// are shown beside it: there V8 is still compiling, and a fae's turn runs
// more code than upstream's (it keeps the conversation, meters the
// request, shows progress, asks for approvals), so it pays more for that.
import { startCountedFae } from './counted-fae.js';
import { sideBySide, type Rounds } from './side-by-side.js';
import { loadUpstreamFae, UPSTREAM_ENV, UPSTREAM_HOW_TO } from './upstream-fae.js';

const TOOL_COUNTS = [0, 10, 50];
/** The tool counts the target holds at (issue 23, part 7). */
const TARGET_COUNTS = [0, 10];
const TURN = 'full turn: arrival → reply (ms)';
/** Once warm: the figures of messages 301 to 400. */
const WARM: Rounds = { warmUp: 300, rounds: 100 };

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
    const contenders = [
      { label: 'fae', start: () => startCountedFae(toolCount, {}) },
      { label: 'upstream', start: () => startCountedFae(toolCount, {}, { upstream: make }) },
      { label: 'floor', start: () => startCountedFae(0, {}, 'floor') },
    ];
    // One case at a time: they share the machine's timers.
    const title = `${toolCount} tools, 0 ms per daemon call`;
    const [faeFirst, upstreamFirst] = await sideBySide(`${title}, first turns`, 0, contenders);
    const [fae, upstream] = await sideBySide(`${title}, warm`, 0, contenders, WARM);
    const warm = fae[TURN] / upstream[TURN];
    const first = faeFirst[TURN] / upstreamFirst[TURN];
    const target = TARGET_COUNTS.includes(toolCount) ? ` (target ≤ 1: ${warm <= 1 ? 'met' : 'MISSED'})` : '';
    verdicts.push(`  ${toolCount} tools: ${warm.toFixed(2)} times upstream's full turn once warm${target}; ${first.toFixed(2)} over the first turns`);
  }
  console.log('\nfae per turn against upstream fae (issue 23, part 7):');
  for (const verdict of verdicts) console.log(verdict);
};

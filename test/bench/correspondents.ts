// Many correspondents (issue 19): 1,000 guests write to one fae, 5
// messages each, then 1,000 more messages spread over them. fae runs in a
// thread of its own (isolated-fae.ts), so its heap is read without the
// daemon's. Prints fae's heap after the first 100 correspondents and at
// the end (target: no more than 2 MB above), and the time per message of
// the last 1,000 against the first 1,000 (target: ratio ≤ 1.2): fae's own
// (its thread's time on a CPU), and the whole.
//
// For finding what grows: FAE_BENCH_CORRESPONDENTS runs it with fewer
// (or more) correspondents; FAE_BENCH_SNAPSHOTS=DIR writes heap snapshots
// of fae's thread after the first 100 correspondents and at the end
// (taking one changes the heap's later growth: read the numbers apart);
// FAE_BENCH_PROFILES=DIR writes CPU profiles of fae's thread over the
// first 100 correspondents and over the last messages, spread.
//
// The simulated daemon runs its collection pass once fae has handled each
// message, while fae waits for the next. February's daemon runs it after
// each call, and so does the local daemon elsewhere; here that pass, which
// walks every formula the daemon holds and so grows with the mail, would
// run on the other core beside fae's work, and on this 2-core machine it
// slowed that work: fae's thread spent 1.45 times as long on a CPU per
// message over the last 1,000 as over the first, and 0.96 times with no
// pass at all. FAE_BENCH_COLLECTION=after-calls shows it so. Run between
// messages, the pass still raised fae's time while it built a list for
// every formula (25 ms a message by the end, and as much garbage): fae's
// time per message rose by a fifth over the correspondents written to in
// turn, and by nothing without the pass. It builds none now (gc.ts).
//
// The correspondents write from the main thread (isolated-fae.ts): held in
// fae's thread, their sends were counted as fae's work.
import { join } from 'node:path';
import { E } from '@endo/far';
import { startIsolatedFae } from './isolated-fae.js';
import { canCollectGarbage } from '../support/garbage.js';

const CORRESPONDENTS = Number(process.env.FAE_BENCH_CORRESPONDENTS ?? 1000);
const SNAPSHOTS = process.env.FAE_BENCH_SNAPSHOTS;
const PROFILES = process.env.FAE_BENCH_PROFILES;
const MESSAGES_EACH = 5;
const SPREAD = 1000;
const HEAP_MARGIN = 2 * 1024 * 1024;
const RATIO_TARGET = 1.2;
const COLLECTION = process.env.FAE_BENCH_COLLECTION === 'after-calls' ? 'after-calls' : 'between-messages';

/** Each of correspondents `from`…`to - 1` writes MESSAGES_EACH messages in a row. */
const inTurn = (from: number, to: number) =>
  Array.from({ length: (to - from) * MESSAGES_EACH }, (_, i) => from + Math.floor(i / MESSAGES_EACH));

/**
 * SPREAD writers drawn over every correspondent, the same draw every run:
 * a 32-bit linear congruential generator, its high bits taken. (Computed
 * in doubles, as it once was, the product lost its low bits, and every
 * writer drawn was a multiple of 8: 134 of the 1,000, each many times.)
 */
const spread = () => {
  let seed = 7;
  return Array.from({ length: SPREAD }, () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return Math.floor((seed / 2 ** 32) * CORRESPONDENTS);
  });
};

const mean = (times: readonly number[]) => times.reduce((sum, t) => sum + t, 0) / times.length;

export const benchCorrespondents = async () => {
  // Its correspondents write faster than people (five in a row, then some
  // again within the minute): paced, their mail would get no model answer,
  // and no turn to time (the pace has tests of its own).
  const fae = await startIsolatedFae({ FAE_TURNS_PER_MINUTE: '0' }, { collection: COLLECTION });
  await fae.meetMany(Array.from({ length: CORRESPONDENTS }, (_, i) => `writer-${i}`));
  const times: number[] = [];
  const busy: number[] = [];
  const running: number[] = [];
  const waiting: number[] = [];
  let sent = 0;
  const converse = async (order: readonly number[]) => {
    const measured = await fae.converseAmong(order, sent);
    times.push(...measured.times);
    busy.push(...measured.busy);
    running.push(...measured.running);
    waiting.push(...measured.waiting);
    sent += order.length;
    await E(fae.host).dismissAll();
  };
  /** Runs `phase`, profiled as `name` when FAE_BENCH_PROFILES asks. */
  const profiled = async (name: string, phase: () => Promise<void>) => {
    if (PROFILES !== undefined) await fae.startProfile();
    await phase();
    if (PROFILES !== undefined) await fae.stopProfile(join(PROFILES, `${name}.cpuprofile`));
  };
  await profiled('first', () => converse(inTurn(0, 100)));
  const at100 = await fae.heapUsed();
  if (SNAPSHOTS !== undefined) await fae.snapshot(join(SNAPSHOTS, 'at100.heapsnapshot'));
  await converse(inTurn(100, CORRESPONDENTS));
  await profiled('last', () => converse(spread()));
  const atEnd = await fae.heapUsed();
  if (SNAPSHOTS !== undefined) await fae.snapshot(join(SNAPSHOTS, 'end.heapsnapshot'));
  await fae.stop();
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;
  const rough = canCollectGarbage ? '' : ' (no gc(): rough)';
  const growth = atEnd.total - at100.total;
  const heapMet = growth <= HEAP_MARGIN ? 'met' : 'MISSED';
  console.log(
    `correspondents: fae's heap after the first 100 correspondents (${100 * MESSAGES_EACH} messages) ${mb(at100.total)}, after ${CORRESPONDENTS} correspondents and ${SPREAD} more messages (${sent} in all) ${mb(atEnd.total)}: ${growth >= 0 ? '+' : '-'}${mb(Math.abs(growth))} (code space ${mb(atEnd.code - at100.code)}); at most +${mb(HEAP_MARGIN)}: ${heapMet}${rough}`,
  );
  const firstAndLast = (series: readonly number[]) => {
    const first = mean(series.slice(0, SPREAD));
    const last = mean(series.slice(-SPREAD));
    return { first, last, text: `first ${SPREAD} ${first.toFixed(2)} ms, last ${SPREAD} ${last.toFixed(2)} ms: ratio ${(last / first).toFixed(2)}` };
  };
  const judged = (series: readonly number[]) => {
    const { first, last, text } = firstAndLast(series);
    return `${text}; at most ${RATIO_TARGET}: ${last / first <= RATIO_TARGET ? 'met' : 'MISSED'}`;
  };
  // The whole time includes the simulated daemon's collection pass (see
  // above), which grows with the mail whatever fae keeps. fae's own time
  // is its thread's time on a CPU where the system tells it
  // (thread-cpu.ts), else its busy time, which also counts the time it
  // waited for a CPU while anything else ran.
  console.log(`correspondents: the daemon's collection pass ran ${COLLECTION === 'after-calls' ? 'after each call, beside fae\'s work' : 'once fae had handled each message'}`);
  if (running.length === sent) {
    console.log(`correspondents: fae's own time per message (its thread on a CPU), ${judged(running)}`);
    console.log(`correspondents: fae's thread busy per message, ${firstAndLast(busy).text}, of which waiting for a CPU ${firstAndLast(waiting).text}`);
  } else {
    console.log(`correspondents: fae's own time per message (its thread busy), ${judged(busy)}`);
  }
  console.log(`correspondents: whole time per message (the daemon's collection passes included), ${firstAndLast(times).text}`);
};

// fae in a thread of its own, for heap readings of fae alone: the
// simulated daemon and CapTP's tables stay in the main thread, as the real
// daemon is another process. Talks CapTP over the thread's port; its model
// answers every message, and writes a short summary when asked for one.
import { parentPort } from 'node:worker_threads';
import { getHeapSpaceStatistics, getHeapStatistics, writeHeapSnapshot } from 'node:v8';
import { Session } from 'node:inspector/promises';
import { writeFile } from 'node:fs/promises';
import { E, Far } from '@endo/far';
import { makeCapTP } from '@endo/captp';
import type { ChatMessage, ChatResult, Provider } from '../../providers/types.js';
import type { FaeEvent } from '../../src/agent/fae-events.js';
import type { CapletContext, GuestPowers, Ref } from '../../src/daemon/endo-types.js';
import { startFae } from '../../src/agent/fae.js';
import { releaseGarbage } from '../support/garbage.js';
import { measuredMessage } from './measured-message.js';
import { threadTimes } from './thread-cpu.js';

if (parentPort === null) throw Error('isolated-fae-worker runs as a worker thread');
const port = parentPort;

const isSummaryRequest = (messages: readonly ChatMessage[]) =>
  messages[0]?.content.startsWith('You keep the memory of a conversation') ?? false;

const provider: Provider = harden({
  kind: 'openai',
  model: 'bench',
  chat: async (messages: readonly ChatMessage[]) => {
    const text = isSummaryRequest(messages)
      ? 'The correspondent asked many numbered questions; Fae answered each.'
      : `Answer to ${messages.at(-1)?.content.slice(0, 60)}`;
    return harden({ message: { role: 'assistant', content: text } }) as ChatResult;
  },
});

let fae: ReturnType<typeof startFae> | undefined;
let correspondent: Ref<Pick<GuestPowers, 'send'>> | undefined;
let profiler: Session | undefined;
/** Sends a message to fae as the correspondent `who` (an index). */
interface Writers {
  send(who: number, text: string): void;
}
let writers: Ref<Writers> | undefined;
/** Asked after each message of converseAmong, if set: the daemon's collection pass then. */
let betweenMessages: Ref<{ collect(): void }> | undefined;

// fae's finished turns, counted from its events. Read rather than polled:
// a status() call every millisecond is work in this thread, and its share
// of the busy time per message would grow with the daemon's latency.
let turnsDone = 0;
let onTurnDone = () => {};
/** fae's followEvents(), a local object in this thread. */
type FaeEvents = { readonly next: () => Promise<IteratorResult<FaeEvent>> };
const countTurns = async (events: FaeEvents) => {
  for (;;) {
    const { done, value } = await events.next();
    if (done === true) return;
    // This reader keeps up, so no turn-done is missed in practice.
    if (value.type === 'turn-done') turnsDone += 1;
    onTurnDone();
  }
};

/** Resolves once fae has finished `count` turns in all. */
const handled = async (count: number) => {
  while (turnsDone < count) {
    await new Promise<void>(resolve => {
      onTurnDone = resolve;
    });
  }
};

const bootstrap = Far('IsolatedFae', {
  start: (powers: Ref<GuestPowers>, context: Ref<CapletContext>, env: Record<string, string>) => {
    fae = startFae(powers, context, { env, provider, write: () => {} });
    void countTurns(fae.followEvents() as FaeEvents);
    return fae;
  },
  /**
   * Who writes to fae (HOST), held here for the whole run: passed anew
   * with each call, its import could be collected and dropped between
   * two calls, and CapTP loses a message sent to it at that moment.
   */
  meet: (sender: Ref<Pick<GuestPowers, 'send'>>) => {
    correspondent = sender;
  },
  /**
   * Sends fae messages `from` to `to` as the correspondent met, each once
   * fae has handled the one before, as someone chatting would. Driven
   * from this thread: one call in, rather than one per message, whose
   * answers CapTP 4.5.1 would keep here for good.
   */
  converse: async (from: number, to: number) => {
    if (correspondent === undefined) throw Error('converse before meet');
    for (let i = from; i <= to; i += 1) {
      await E(correspondent).send('fae', [`question ${i}: what is ${i} times ${i}?`], [], []);
      await handled(i);
    }
  },
  /** Many who write to fae, held in the main thread (isolated-fae.ts): `writers` sends as the one asked. */
  meetMany: (senders: Ref<Writers>) => {
    writers = senders;
  },
  /** Has converseAmong run the daemon's collection pass once fae has handled each message. */
  collectBetweenMessages: (daemon: Ref<{ collect(): void }>) => {
    betweenMessages = daemon;
  },
  /**
   * Sends one message from each correspondent `order` names (by index),
   * each once fae has handled the one before; `before` is how many fae
   * had handled. Posts the milliseconds each message took, and those
   * this thread was busy for it, beside CapTP (measured-message.ts).
   */
  converseAmong: async (order: readonly number[], before: number) => {
    const times: number[] = [];
    // This thread's busy time: fae's own work, without the daemon's.
    const busy: number[] = [];
    // Of it, the time on a CPU, and that spent waiting for one.
    const running: number[] = [];
    const waiting: number[] = [];
    if (writers === undefined) throw Error('converseAmong before meetMany');
    for (const [i, who] of order.entries()) {
      const started = performance.now();
      const loop = performance.eventLoopUtilization();
      const threadBefore = threadTimes();
      await E(writers).send(who, `note ${before + i + 1} from correspondent ${who}`);
      await handled(before + i + 1);
      const threadAfter = threadTimes();
      busy.push(performance.eventLoopUtilization(loop).active);
      // The daemon's collection pass, while fae waits for the next message.
      if (betweenMessages !== undefined) await E(betweenMessages).collect();
      times.push(performance.now() - started);
      if (threadBefore !== undefined && threadAfter !== undefined) {
        running.push(threadAfter.running - threadBefore.running);
        waiting.push(threadAfter.waiting - threadBefore.waiting);
      }
    }
    port.postMessage(measuredMessage({ times, busy, running, waiting }));
  },
  /**
   * This thread's used heap, in bytes, after collections and CapTP drops:
   * in all, and in the code space. (A heap snapshot would tell more, but
   * taking one makes the heap grow faster afterwards.)
   */
  heapUsed: async () => {
    await releaseGarbage();
    const codeSpace = getHeapSpaceStatistics().find(space => space.space_name === 'code_space');
    return harden({ total: getHeapStatistics().used_heap_size, code: codeSpace?.space_used_size ?? 0 });
  },
  /** Writes a heap snapshot of this thread to `path`, once garbage is settled. */
  snapshot: async (path: string) => {
    await releaseGarbage();
    writeHeapSnapshot(path);
  },
  /** Starts profiling this thread's CPU; stopProfile writes what was seen since. */
  startProfile: async () => {
    profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
  },
  stopProfile: async (path: string) => {
    if (profiler === undefined) throw Error('stopProfile before startProfile');
    const { profile } = await profiler.post('Profiler.stop');
    profiler.disconnect();
    profiler = undefined;
    await writeFile(path, JSON.stringify(profile));
  },
});

// The rejections CapTP carries reach their callers; it need not print them too.
const { dispatch } = makeCapTP('isolated-fae', (message: unknown) => port.postMessage(message), bootstrap, {
  gcImports: true,
  onReject: () => {},
});
port.on('message', message => dispatch(message));

// followMessages() iterators (spec §5.6): subscribe, replay the live inbox
// in ascending order, then yield new deliveries. The replay walks the live
// map, so a message delivered during the replay is seen by both the replay
// and the subscription: duplicates are possible, exactly as upstream.
import { makeExo } from '@endo/exo';
import { makePromiseKit, type PromiseKit } from '@endo/promise-kit';
import { AsyncIteratorInterface } from './interfaces.js';
import type { Mailbox, MessageRecord } from './mailbox-state.js';
import type { Instrument } from './instrument.js';

type Result = IteratorResult<MessageRecord, unknown>;

export interface FollowerControl {
  /** Ends the iterator for good: pending and later next() calls reject. */
  kill(reason: Error): void;
}

/**
 * @param instrument wraps each method (latency, counts)
 * @param track registers the iterator so restart()/stop() can kill it
 */
export const makeMessageFollower = (
  mailbox: Mailbox,
  instrument: Instrument,
  track: (control: FollowerControl) => () => void,
): object => {
  const queue: MessageRecord[] = [];
  const waiters: PromiseKit<Result>[] = [];
  let replay: IterableIterator<MessageRecord> | undefined;
  let started = false;
  let finished = false;
  let deathReason: Error | undefined;
  let unsubscribe = () => {};
  let untrack = () => {};

  const push = (record: MessageRecord) => {
    const waiter = waiters.shift();
    if (waiter) waiter.resolve(harden({ value: record, done: false }));
    else queue.push(record);
  };

  const finish = () => {
    finished = true;
    replay = undefined;
    queue.length = 0;
    unsubscribe();
    untrack();
  };

  const control: FollowerControl = harden({
    kill: (reason: Error) => {
      if (deathReason !== undefined) return;
      deathReason = reason;
      finish();
      for (const waiter of waiters.splice(0)) waiter.reject(reason);
    },
  });

  const next = async (): Promise<Result> => {
    if (deathReason !== undefined) throw deathReason;
    if (finished) return harden({ value: undefined, done: true });
    if (!started) {
      // Like the daemon's generator: work starts at the first next().
      started = true;
      unsubscribe = mailbox.subscribe(push);
      untrack = track(control);
      replay = mailbox.live();
    }
    if (replay !== undefined) {
      const step = replay.next();
      if (!step.done) return harden({ value: step.value, done: false });
      replay = undefined;
    }
    const queued = queue.shift();
    if (queued !== undefined) return harden({ value: queued, done: false });
    const waiter = makePromiseKit<Result>();
    waiters.push(waiter);
    return waiter.promise;
  };

  const end = (value: unknown): Result => {
    finish();
    for (const waiter of waiters.splice(0)) waiter.resolve(harden({ value: undefined, done: true }));
    return harden({ value, done: true });
  };

  return makeExo('AsyncIterator', AsyncIteratorInterface, {
    next: instrument('next', next, false),
    return: instrument('return', async (value?: unknown) => end(value), false),
    throw: instrument('throw', async (error?: unknown) => {
      end(undefined);
      throw error;
    }, false),
  });
};
harden(makeMessageFollower);

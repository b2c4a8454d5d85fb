// src/local-daemon/follow/: the follow* streams, and how each dialect hands
// one out.
// Imports: src/daemon and below, and the rest of src/local-daemon.
//
// The daemon's follow* generators (followMessages, followNameChanges,
// followLocatorNameChanges) as one local follower over a source: nothing
// happens until the first pull; then it subscribes, replays the current
// state, and yields live changes. A source's replay may walk live state,
// so an item published during the replay can come twice (messages), as
// upstream. How a follower is handed out (iterator reference or stream
// reader) is the dialect's business: see far-follower.ts.
import { makePromiseKit, type PromiseKit } from '@endo/promise-kit';

export interface FollowSource<T> {
  /** Subscribes `push`; gives the replay and the unsubscriber. */
  start(push: (item: T) => void): { readonly replay: Iterator<T>; readonly stop: () => void };
}

export interface FollowerControl {
  /** Ends the follower for good: pending and later pulls reject. */
  kill(reason: Error): void;
}

/** A local async iterator; the far wrappers forward to it. */
export interface Follower<T = unknown> {
  next(): Promise<IteratorResult<T, unknown>>;
  return(value?: unknown): Promise<IteratorResult<T, unknown>>;
  throw(error?: unknown): Promise<IteratorResult<T, unknown>>;
}

/** Registers a live follower so restart()/stop() can kill it; returns the untracker. */
export type Track = (control: FollowerControl) => () => void;

export const makeFollower = <T>(source: FollowSource<T>, track: Track): Follower<T> => {
  type Result = IteratorResult<T, unknown>;
  const queue: T[] = [];
  const waiters: PromiseKit<Result>[] = [];
  let replay: Iterator<T> | undefined;
  let started = false;
  let finished = false;
  let deathReason: Error | undefined;
  let stop = () => {};
  let untrack = () => {};

  const push = (item: T) => {
    const waiter = waiters.shift();
    if (waiter) waiter.resolve(harden({ value: item, done: false }));
    else queue.push(item);
  };

  const finish = () => {
    finished = true;
    replay = undefined;
    queue.length = 0;
    stop();
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
      // Like the daemon's generators: work starts at the first pull.
      started = true;
      const started_ = source.start(push);
      stop = started_.stop;
      replay = started_.replay;
      untrack = track(control);
    }
    if (replay !== undefined) {
      const step = replay.next();
      if (!step.done) return harden({ value: step.value, done: false });
      replay = undefined;
    }
    if (queue.length > 0) return harden({ value: queue.shift() as T, done: false });
    const waiter = makePromiseKit<Result>();
    waiters.push(waiter);
    return waiter.promise;
  };

  const end = (value: unknown): Result => {
    finish();
    for (const waiter of waiters.splice(0)) waiter.resolve(harden({ value: undefined, done: true }));
    return harden({ value, done: true });
  };

  return harden({
    next,
    return: async (value?: unknown) => end(value),
    throw: async (error?: unknown) => {
      end(undefined);
      throw error;
    },
  });
};
harden(makeFollower);

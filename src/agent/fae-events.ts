// What fae is doing, as events a follower reads (the Fae exo's
// followEvents(): `npm start` shows its status line from them, not from
// log lines). Each follower has its own bounded queue: a follower that
// stops reading loses the oldest events (and is told how many), never
// holds fae's memory or slows a turn.
import { Far } from '@endo/far';
import { makePromiseKit } from '@endo/promise-kit';

/** One thing fae did, about the message `message`. */
export type FaeEvent =
  | { readonly type: 'turn-started'; readonly message: bigint; readonly from: string }
  | { readonly type: 'tool-called'; readonly message: bigint; readonly tool: string }
  | { readonly type: 'progress'; readonly message: bigint; readonly text: string }
  | { readonly type: 'answered'; readonly message: bigint }
  | { readonly type: 'turn-done'; readonly message: bigint; readonly messageId: string }
  | { readonly type: 'missed'; readonly count: number };

/** Events one follower may have waiting, at most, before the oldest go. */
export const FOLLOWER_QUEUE = 256;

export interface FaeEvents {
  readonly emit: (event: FaeEvent) => void;
  /** A far async iterator of the events from now on; return() ends it. */
  readonly follow: () => unknown;
}

export const makeFaeEvents = (): FaeEvents => {
  const followers = new Set<(event: FaeEvent) => void>();

  const follow = () => {
    const queue: FaeEvent[] = [];
    let missed = 0;
    let wake = makePromiseKit<void>();
    let ended = false;
    const take = (event: FaeEvent) => {
      queue.push(event);
      if (queue.length > FOLLOWER_QUEUE) {
        queue.shift();
        missed += 1;
      }
      wake.resolve();
    };
    followers.add(take);
    const end = () => {
      ended = true;
      followers.delete(take);
      // Nothing unread is kept for a follower that left.
      queue.length = 0;
      missed = 0;
      wake.resolve();
    };
    return Far('FaeEvents', {
      next: async (): Promise<IteratorResult<FaeEvent, undefined>> => {
        while (queue.length === 0 && !ended) {
          // eslint-disable-next-line no-await-in-loop -- wait for the next event
          await wake.promise;
          wake = makePromiseKit<void>();
        }
        if (missed > 0) {
          const count = missed;
          missed = 0;
          return harden({ done: false, value: harden({ type: 'missed', count }) });
        }
        const value = queue.shift();
        return value === undefined ? harden({ done: true, value: undefined }) : harden({ done: false, value });
      },
      return: async (): Promise<IteratorResult<FaeEvent, undefined>> => {
        end();
        return harden({ done: true, value: undefined });
      },
    });
  };

  return harden({
    emit: (event: FaeEvent) => {
      // Nobody follows (the common case in the daemon): nothing to make.
      if (followers.size === 0) return;
      const hardened = harden(event);
      for (const take of followers) take(hardened);
    },
    follow,
  });
};
harden(makeFaeEvents);

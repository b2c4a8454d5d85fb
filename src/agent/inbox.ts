// Following fae's mail. The daemon's reader is read all along (also while
// a turn runs), so fae always knows the latest revision of each message;
// turns run one at a time, in arrival order, and:
//   - each message number starts one turn at most: the daemon may yield a
//     message twice (replay and live feed), and an August sender may edit
//     a message after sending it;
//   - a message still marked not done (August partial messages, done:false)
//     waits until a revision marks it done, and is then answered with that
//     revision's text;
//   - a revision of a message whose turn has started or ended starts no
//     second turn: fae keeps its answer and tells onIgnoredEdit;
//   - fae's own sent copies are skipped.
// Everything stops when the agent is cancelled.
import { makePromiseKit } from '@endo/promise-kit';
import type { DaemonAdapter, InboxMessage } from '../daemon/adapter.js';
import type { Cancellation } from './cancellation.js';

export interface FollowInboxOptions {
  readonly cancelled: Cancellation;
  readonly onMessage: (message: InboxMessage) => Promise<void>;
  /** Told of each revision of a message fae has already taken up. */
  readonly onIgnoredEdit?: (message: InboxMessage) => void;
}

const STOP: unique symbol = Symbol('stop');

/** Whether `later` is an edit of `earlier` rather than the same revision again. */
const isRevision = (earlier: InboxMessage, later: InboxMessage) =>
  earlier.date !== later.date || earlier.done !== later.done;

export const followInbox = async (
  daemon: Pick<DaemonAdapter, 'followMessages' | 'isOwnMessage'>,
  { cancelled, onMessage, onIgnoredEdit }: FollowInboxOptions,
) => {
  // Settles when fae is cancelled, or when either loop below ends or fails.
  const halt = makePromiseKit<typeof STOP>();
  void cancelled.promise.then(() => halt.resolve(STOP));
  const reader = daemon.followMessages();
  // Not yet taken up: the latest revision per number, in arrival order.
  const waiting = new Map<bigint, InboxMessage>();
  // Taken up (turn started or over): the last revision seen per number.
  const taken = new Map<bigint, InboxMessage>();
  let readerEnded = false;
  let arrived = makePromiseKit<void>();

  const read = async () => {
    for (;;) {
      // eslint-disable-next-line no-await-in-loop -- the reader yields one at a time
      const next = await Promise.race([reader.next(), halt.promise]);
      if (next === STOP || next.done) break;
      const message = next.value;
      if (daemon.isOwnMessage(message)) continue;
      const known = taken.get(message.number);
      if (known !== undefined) {
        if (isRevision(known, message)) {
          taken.set(message.number, message);
          onIgnoredEdit?.(message);
        }
        continue;
      }
      waiting.set(message.number, message);
      arrived.resolve();
    }
    readerEnded = true;
    arrived.resolve();
  };

  const work = async () => {
    for (;;) {
      const ready = [...waiting.values()].find(message => message.done);
      if (ready === undefined) {
        if (readerEnded) return;
        // eslint-disable-next-line no-await-in-loop -- nothing to do until mail arrives
        const woken = await Promise.race([arrived.promise, halt.promise]);
        if (woken === STOP) return;
        arrived = makePromiseKit<void>();
        continue;
      }
      waiting.delete(ready.number);
      taken.set(ready.number, ready);
      // eslint-disable-next-line no-await-in-loop -- one turn at a time
      const outcome = await Promise.race([onMessage(ready), halt.promise]);
      if (outcome === STOP) return;
    }
  };

  try {
    // Whichever loop fails first stops the other.
    await Promise.all([
      read().catch(error => {
        halt.resolve(STOP);
        throw error;
      }),
      work().catch(error => {
        halt.resolve(STOP);
        throw error;
      }),
    ]);
  } finally {
    halt.resolve(STOP);
    // Ends the daemon-side generator without waiting for it.
    void reader.return?.();
  }
};
harden(followInbox);

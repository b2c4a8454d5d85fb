// Following fae's mail. The daemon's reader is read all along (also while
// a turn runs), so fae always knows the latest revision of each message;
// turns run one at a time, in arrival order, and:
//   - each message number starts one turn at most: the daemon may yield a
//     message twice (replay and live feed), and an August sender may edit
//     a message after sending it;
//   - a message still marked not done (August partial messages, done:false)
//     waits until a revision marks it done, and is then answered with that
//     revision's text;
//   - a revision that arrives while the message's turn runs is handed to
//     that turn (`revised`): a turn that has not answered yet gives up
//     (onMessage resolves false) and the message waits for its done
//     revision again, which then gets a fresh turn;
//   - a revision of a message already answered starts no second turn:
//     fae keeps its answer and tells onIgnoredEdit;
//   - fae's own sent copies are skipped.
// What fae keeps per message handled is constant: the numbers as ranges,
// and a revision's date only while the message can still be edited.
// Everything stops when the agent is cancelled.
import { makePromiseKit } from '@endo/promise-kit';
import type { DaemonAdapter, InboxMessage } from '../daemon/adapter.js';
import type { Cancellation } from './cancellation.js';
import { makeCancellation } from './cancellation.js';
import { makeNumberSet } from './number-set.js';

/** What a turn is told about its message while it runs. */
export interface TurnSignals {
  /** Resolves with the first revision of the message that arrives during the turn. */
  readonly revised: Promise<InboxMessage>;
}

/**
 * How a turn ended, as onMessage tells it (nothing means 'answered'):
 * - 'revised': it gave up without answering, because the message was revised;
 * - 'answered': the message is answered (or never will be) and stays in the inbox;
 * - 'dismissed': answered and dismissed, so the daemon refuses its edits.
 */
export type TurnEnd = 'revised' | 'answered' | 'dismissed';

export interface FollowInboxOptions {
  readonly cancelled: Cancellation;
  /** Runs one turn. */
  readonly onMessage: (message: InboxMessage, signals: TurnSignals) => Promise<TurnEnd | void>;
  /** Told of fae's own sent copies (once per number), which start no turn. */
  readonly onOwnMessage?: (message: InboxMessage) => void;
  /** Told of each revision of a message fae has already taken up. */
  readonly onIgnoredEdit?: (message: InboxMessage) => void;
  /** Told of an unfinished message set aside (UNFINISHED_LIMIT). */
  readonly onSetAside?: (message: InboxMessage) => void;
}

const STOP: unique symbol = Symbol('stop');

/**
 * What fae keeps of a message it has answered while the message can still
 * be edited: enough to tell a revision from the same revision again, and
 * not the record itself, whose dismisser and promise would otherwise stay
 * held (here and in CapTP's tables).
 */
interface Seen {
  readonly date: string;
  readonly done: boolean;
}

const seenOf = ({ date, done }: InboxMessage): Seen => ({ date, done });

/** Whether `later` is an edit of what was `earlier` rather than the same revision again. */
const isRevision = (earlier: Seen, later: InboxMessage) =>
  earlier.date !== later.date || earlier.done !== later.done;

/**
 * Answered messages still in the inbox whose revisions fae tells apart, at
 * most (FAE_AUTO_DISMISS off keeps them all there); past it, an edit of
 * one of the oldest passes for the same revision again, which starts no
 * turn either.
 */
const REVISABLE = 16_384;

/**
 * Messages still being written (done: false) that wait for their final
 * revision, at most; past it the oldest is set aside: it stays in the
 * daemon's inbox, and its final revision, when it comes, is taken up like
 * new mail.
 */
export const UNFINISHED_LIMIT = 1024;

/**
 * Finished messages waiting for their turn, at most, before fae stops
 * reading more: they stay in the daemon's inbox meanwhile.
 */
export const BACKLOG_LIMIT = 4096;

/**
 * The messages waiting for a turn, in arrival order: finished ones, and
 * unfinished ones up to UNFINISHED_LIMIT (past it the oldest is set aside).
 */
const makeWaiting = (onSetAside?: (message: InboxMessage) => void) => {
  const messages = new Map<bigint, InboxMessage>();
  let unfinished = 0;
  const remove = (number: bigint) => {
    const known = messages.get(number);
    if (known !== undefined && !known.done) unfinished -= 1;
    messages.delete(number);
  };
  const setAsideOldest = () => {
    for (const message of messages.values()) {
      if (message.done) continue;
      remove(message.number);
      onSetAside?.(message);
      return;
    }
  };
  return {
    has: (number: bigint) => messages.has(number),
    set: (number: bigint, message: InboxMessage) => {
      const known = messages.get(number);
      if (known !== undefined && !known.done) unfinished -= 1;
      // A revision keeps its place in the arrival order.
      messages.set(number, message);
      if (!message.done) unfinished += 1;
      if (unfinished > UNFINISHED_LIMIT) setAsideOldest();
    },
    delete: remove,
    /** The first finished message to arrive. */
    nextFinished: () => {
      for (const message of messages.values()) if (message.done) return message;
      return undefined;
    },
    finished: () => messages.size - unfinished,
  };
};

export const followInbox = async (
  daemon: Pick<DaemonAdapter, 'followMessages' | 'isOwnMessage'>,
  { cancelled, onMessage, onOwnMessage, onIgnoredEdit, onSetAside }: FollowInboxOptions,
) => {
  // Settles when fae is cancelled, or when either loop below ends or fails.
  const halt = makePromiseKit<typeof STOP>();
  void cancelled.promise.then(() => halt.resolve(STOP));
  const reader = daemon.followMessages();
  // Not yet taken up: the latest revision per number, in arrival order
  // (bounded: UNFINISHED_LIMIT, BACKLOG_LIMIT).
  const waiting = makeWaiting(onSetAside);
  // Every number whose turn is over, and fae's own copies. The daemon's
  // replay can yield a number again long after it was handled and
  // dismissed (as late as the number of messages that arrived during the
  // replay), so none is ever forgotten; kept as ranges, they cost nothing.
  const over = makeNumberSet();
  // Answered and not dismissed: the last revision seen per number.
  const revisable = new Map<bigint, Seen>();
  let readerEnded = false;
  let arrived = makePromiseKit<void>();
  // Resolved when a turn takes a message up, so a full backlog reads on.
  let taken = makePromiseKit<void>();
  // The message whose turn runs, and the revisions that came meanwhile.
  let running:
    | { number: bigint; seen: Seen; revised: ReturnType<typeof makePromiseKit<InboxMessage>>; latest?: InboxMessage }
    | undefined;

  const read = async () => {
    for (;;) {
      if (waiting.finished() >= BACKLOG_LIMIT) {
        // eslint-disable-next-line no-await-in-loop -- nothing more is read until a turn takes one up
        if ((await Promise.race([taken.promise, halt.promise])) === STOP) break;
        continue;
      }
      // eslint-disable-next-line no-await-in-loop -- the reader yields one at a time
      const next = await Promise.race([reader.next(), halt.promise]);
      if (next === STOP || next.done) break;
      const message = next.value;
      const { number } = message;
      if (running?.number === number) {
        if (isRevision(running.seen, message)) {
          running.seen = seenOf(message);
          running.latest = message;
          running.revised.resolve(message);
        }
      } else if (waiting.has(number)) {
        waiting.set(number, message);
        arrived.resolve();
      } else if (over.has(number)) {
        const known = revisable.get(number);
        if (known !== undefined && isRevision(known, message)) {
          revisable.set(number, seenOf(message));
          onIgnoredEdit?.(message);
        }
      } else if (daemon.isOwnMessage(message)) {
        over.add(number);
        onOwnMessage?.(message);
      } else {
        waiting.set(number, message);
        arrived.resolve();
      }
    }
    readerEnded = true;
    arrived.resolve();
  };

  /** The turn of `number` is over: later copies of it start nothing. */
  const close = (number: bigint, seen: Seen, end: TurnEnd | void) => {
    over.add(number);
    if (end === 'dismissed') return;
    revisable.set(number, seen);
    if (revisable.size > REVISABLE) revisable.delete(revisable.keys().next().value as bigint);
  };

  const work = async () => {
    for (;;) {
      const ready = waiting.nextFinished();
      if (ready === undefined) {
        if (readerEnded) return;
        // eslint-disable-next-line no-await-in-loop -- nothing to do until mail arrives
        const woken = await Promise.race([arrived.promise, halt.promise]);
        if (woken === STOP) return;
        arrived = makePromiseKit<void>();
        continue;
      }
      waiting.delete(ready.number);
      taken.resolve();
      taken = makePromiseKit<void>();
      const turn: NonNullable<typeof running> = {
        number: ready.number,
        seen: seenOf(ready),
        revised: makePromiseKit<InboxMessage>(),
      };
      running = turn;
      // eslint-disable-next-line no-await-in-loop -- one turn at a time
      const end = await Promise.race([onMessage(ready, harden({ revised: turn.revised.promise })), halt.promise]);
      running = undefined;
      if (end === STOP) return;
      if (turn.latest !== undefined && end === 'revised') {
        // Given up for the revision: it waits (for done) like new mail.
        waiting.set(ready.number, turn.latest);
        continue;
      }
      close(ready.number, turn.seen, end);
      if (turn.latest !== undefined) onIgnoredEdit?.(turn.latest);
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

/**
 * The cancellation for one turn: the agent's, or a revision of the
 * message that arrives before the turn has answered (once an answer is
 * out, a revision no longer stops the turn). `revised()` tells which.
 */
export const turnCancellation = (
  cancelled: Cancellation,
  signals: TurnSignals,
  hasAnswered: () => boolean,
) => {
  let revised = false;
  let over = false;
  const byRevision = signals.revised.then(async () => {
    if (over || hasAnswered()) return new Promise<never>(() => {});
    revised = true;
    return Error('the message was revised');
  });
  // Under @endo/init, Promise.race is @endo/promise-kit's memo race: a race
  // stays listed on each contender until it settles, so a race joined by
  // the agent's cancellation (which settles only at the end) and a turn's
  // revision (mostly never) would keep every turn, and all it reached,
  // alive for good. Ending the turn settles the race; that outcome
  // cancels nothing.
  const ended = makePromiseKit<undefined>();
  const outcome = Promise.race([cancelled.promise, byRevision, ended.promise]);
  const reason = outcome.then(error => error ?? new Promise<never>(() => {}));
  return harden({
    cancelled: makeCancellation(reason),
    revised: () => revised,
    /** The turn is over: lets go of the agent's cancellation. */
    end: () => {
      over = true;
      ended.resolve(undefined);
    },
  });
};
harden(turnCancellation);

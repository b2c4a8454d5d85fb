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
// Everything stops when the agent is cancelled.
import { makePromiseKit } from '@endo/promise-kit';
import type { DaemonAdapter, InboxMessage } from '../daemon/adapter.js';
import type { Cancellation } from './cancellation.js';
import { makeCancellation } from './cancellation.js';

/** What a turn is told about its message while it runs. */
export interface TurnSignals {
  /** Resolves with the first revision of the message that arrives during the turn. */
  readonly revised: Promise<InboxMessage>;
}

export interface FollowInboxOptions {
  readonly cancelled: Cancellation;
  /**
   * Runs one turn. Resolving false means the turn gave up without
   * answering because the message was revised; anything else means the
   * message is answered (or will never be).
   */
  readonly onMessage: (message: InboxMessage, signals: TurnSignals) => Promise<boolean | void>;
  /** Told of fae's own sent copies (once per number), which start no turn. */
  readonly onOwnMessage?: (message: InboxMessage) => void;
  /** Told of each revision of a message fae has already taken up. */
  readonly onIgnoredEdit?: (message: InboxMessage) => void;
}

const STOP: unique symbol = Symbol('stop');

/**
 * What fae keeps of a message it has taken up: enough to tell a revision
 * from the same revision again, and not the record itself, whose
 * dismisser and promise would otherwise stay held (here and in CapTP's
 * tables) for as long as fae runs.
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
 * Numbers remembered at most, per kind; the oldest go first (about 3 MB
 * at most). A message that old is long dismissed (FAE_AUTO_DISMISS) or
 * long answered. They are not forgotten at their dismissal: the daemon's
 * replay walks the inbox while new mail also queues, so a message can come
 * again long after it was handled and dismissed (upstream does the same),
 * as late as the number of messages that arrived during the replay.
 */
const REMEMBERED = 16_384;

const remember = <V>(map: Map<bigint, V>, number: bigint, value: V) => {
  map.set(number, value);
  if (map.size > REMEMBERED) map.delete(map.keys().next().value as bigint);
};

export const followInbox = async (
  daemon: Pick<DaemonAdapter, 'followMessages' | 'isOwnMessage'>,
  { cancelled, onMessage, onOwnMessage, onIgnoredEdit }: FollowInboxOptions,
) => {
  // Settles when fae is cancelled, or when either loop below ends or fails.
  const halt = makePromiseKit<typeof STOP>();
  void cancelled.promise.then(() => halt.resolve(STOP));
  const reader = daemon.followMessages();
  // Not yet taken up: the latest revision per number, in arrival order.
  const waiting = new Map<bigint, InboxMessage>();
  // Taken up (turn started or over): the last revision seen per number.
  const taken = new Map<bigint, Seen>();
  const own = new Map<bigint, true>();
  let readerEnded = false;
  let arrived = makePromiseKit<void>();
  // The message whose turn runs, and the revisions that came meanwhile.
  let running: { number: bigint; revised: ReturnType<typeof makePromiseKit<InboxMessage>>; latest?: InboxMessage } | undefined;

  const read = async () => {
    for (;;) {
      // eslint-disable-next-line no-await-in-loop -- the reader yields one at a time
      const next = await Promise.race([reader.next(), halt.promise]);
      if (next === STOP || next.done) break;
      const message = next.value;
      if (daemon.isOwnMessage(message)) {
        if (!own.has(message.number)) {
          remember(own, message.number, true);
          onOwnMessage?.(message);
        }
        continue;
      }
      const known = taken.get(message.number);
      if (known !== undefined) {
        if (isRevision(known, message)) {
          taken.set(message.number, seenOf(message));
          if (running?.number === message.number) {
            running.latest = message;
            running.revised.resolve(message);
          } else {
            onIgnoredEdit?.(message);
          }
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
      remember(taken, ready.number, seenOf(ready));
      const turn = { number: ready.number, revised: makePromiseKit<InboxMessage>() } as NonNullable<typeof running>;
      running = turn;
      // eslint-disable-next-line no-await-in-loop -- one turn at a time
      const outcome = await Promise.race([onMessage(ready, harden({ revised: turn.revised.promise })), halt.promise]);
      running = undefined;
      if (outcome === STOP) return;
      if (turn.latest !== undefined) {
        if (outcome === false) {
          // Given up for the revision: it waits (for done) like new mail.
          taken.delete(ready.number);
          waiting.set(ready.number, turn.latest);
        } else {
          onIgnoredEdit?.(turn.latest);
        }
      }
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

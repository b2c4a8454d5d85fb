// Following fae's mail. The daemon's reader is read all along (also while
// turns run), so fae always knows the latest revision of each message;
// only a turn just taken up goes first: the next read waits until it has
// answered or yields (to wait on its model), so reading ahead never holds
// up an answer.
// Turns run concurrently, up to a limit, one at a time per lane (the
// conversation a message most likely goes to: laneOf), each lane in
// arrival order; and:
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
import type { DaemonAdapter, InboxMessage } from '../../daemon/adapter.js';
import type { Cancellation } from './cancellation.js';
import { makeCancellation } from './cancellation.js';
import { makeNumberSet } from './number-set.js';
import { makeLocalKit, type LocalKit } from '../../local-kit.js';
import { REPORTED_ALREADY, inBackground } from '../../background.js';

/** What a turn is told about its message while it runs. */
export interface TurnSignals {
  /** Resolves with the first revision of the message that arrives during the turn. */
  readonly revised: Promise<InboxMessage>;
  /**
   * The turn waits for someone (the host's approval) and gives up its
   * place among the FAE_CONCURRENT_TURNS meanwhile, so other lanes' turns
   * can run; its own lane stays busy. Returns the taking back of the
   * place, which the turn calls when it goes on (at once, even if that
   * puts more turns at work than the limit for a while).
   */
  readonly park: () => () => void;
  /**
   * The turn's answer is out (or none will be sent): the inbox, which
   * reads no further while a turn it just started has not yielded, reads
   * on. A turn that never says so lets the inbox read on when it ends.
   */
  readonly answered: () => void;
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
  /**
   * Asked first of each new message not fae's own: true takes it out of the
   * inbox's hands (the answer to one of fae's forms), so no turn starts.
   */
  readonly intercept?: (message: InboxMessage) => boolean;
  /** Told of fae's own sent copies (once per number), which start no turn. */
  readonly onOwnMessage?: (message: InboxMessage) => void;
  /** Told of each revision of a message fae has already taken up. */
  readonly onIgnoredEdit?: (message: InboxMessage) => void;
  /** Told of an unfinished message set aside (UNFINISHED_LIMIT). */
  readonly onSetAside?: (message: InboxMessage) => void;
  /**
   * The lane of a message: messages of one lane are taken up one at a
   * time, in arrival order. One lane for all by default.
   */
  readonly laneOf?: (message: InboxMessage) => string;
  /** Turns that may run at once (FAE_CONCURRENT_TURNS); 1 by default. */
  readonly concurrency?: number;
  /**
   * Whether an answered message is still open to edits: a revision of it
   * is then taken up like new mail (its turn answers the edit), not ignored.
   */
  readonly isEditable?: (number: bigint) => boolean;
  /**
   * Told when a turn, or one of the callbacks above, failed: that failure
   * is its own, and fae goes on serving the rest of its mail.
   */
  readonly onFailure?: (where: string, error: unknown, message?: InboxMessage) => void;
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
    /** The first finished message to arrive whose lane `free` accepts. */
    nextFinished: (free: (message: InboxMessage) => boolean) => {
      for (const message of messages.values()) if (message.done && free(message)) return message;
      return undefined;
    },
    finished: () => messages.size - unfinished,
  };
};

/** A turn under way, and the revisions of its message that came meanwhile. */
interface Running {
  readonly number: bigint;
  readonly lane: string;
  seen: Seen;
  readonly revised: LocalKit<InboxMessage>;
  latest?: InboxMessage;
}

/**
 * What the reader and the scheduler share: the messages waiting, the
 * turns running, and what is over.
 */
const makeMailState = (onSetAside?: (message: InboxMessage) => void) => {
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
  const running = new Map<bigint, Running>();
  return { waiting, over, revisable, running };
};
type MailState = ReturnType<typeof makeMailState>;

/** The turn of `number` is over: later copies of it start nothing. */
const closeTurn = ({ over, revisable }: MailState, number: bigint, seen: Seen, end: TurnEnd | void) => {
  over.add(number);
  if (end === 'dismissed') return;
  revisable.set(number, seen);
  if (revisable.size > REVISABLE) revisable.delete(revisable.keys().next().value as bigint);
};

/** Resolves once the work queued now (promise reactions, I/O callbacks) has run. */
const afterPendingWork = () => new Promise<void>(resolve => setImmediate(resolve));

/** Reads the daemon's reader until it ends or fae halts, sorting each message. */
const readMail = async (
  reader: AsyncIterator<InboxMessage>,
  daemon: Pick<DaemonAdapter, 'isOwnMessage'>,
  { waiting, over, revisable, running }: MailState,
  { halt, arrived, taken, intercept, onOwnMessage, onIgnoredEdit, isEditable }: {
    readonly halt: Promise<typeof STOP>;
    /** A message waits for its turn; when the turn it started at once has answered, if it did. */
    readonly arrived: () => Promise<unknown> | undefined;
    readonly taken: () => Promise<void>;
    readonly intercept?: (message: InboxMessage) => boolean;
    readonly onOwnMessage?: (message: InboxMessage) => void;
    readonly onIgnoredEdit?: (message: InboxMessage) => void;
    readonly isEditable?: (number: bigint) => boolean;
  },
) => {
  /** When the turn the last message read started has answered (or ended), if it started one. */
  let started: Promise<unknown> | undefined;
  for (;;) {
    if (waiting.finished() >= BACKLOG_LIMIT) {
      // eslint-disable-next-line no-await-in-loop -- nothing more is read until a turn takes one up
      if ((await Promise.race([taken(), halt])) === STOP) return;
      continue;
    }
    if (started !== undefined) {
      // The turn the last message started goes first: the next read waits
      // until that turn has answered or has yielded (to wait on its model,
      // say), so reading ahead never holds up its answer, and goes on while
      // it waits.
      const first = started;
      started = undefined;
      // eslint-disable-next-line no-await-in-loop -- one read at a time
      if ((await Promise.race([first, afterPendingWork(), halt])) === STOP) return;
    }
    // eslint-disable-next-line no-await-in-loop -- the reader yields one at a time
    const next = await Promise.race([reader.next(), halt]);
    if (next === STOP || next.done) return;
    const message = next.value;
    const { number } = message;
    const turn = running.get(number);
    if (turn !== undefined) {
      if (isRevision(turn.seen, message)) {
        turn.seen = seenOf(message);
        turn.latest = message;
        turn.revised.resolve(message);
      }
    } else if (waiting.has(number)) {
      waiting.set(number, message);
      started = arrived();
    } else if (over.has(number)) {
      const known = revisable.get(number);
      if (known !== undefined && isRevision(known, message)) {
        revisable.set(number, seenOf(message));
        if (isEditable?.(number)) {
          waiting.set(number, message);
          started = arrived();
        } else {
          onIgnoredEdit?.(message);
        }
      }
    } else if (daemon.isOwnMessage(message)) {
      over.add(number);
      onOwnMessage?.(message);
    } else if (intercept?.(message)) {
      over.add(number);
    } else {
      waiting.set(number, message);
      started = arrived();
    }
  }
};

/**
 * The callbacks of `options`, each of which fails alone: what one throws
 * is reported, and the inbox goes on with `fallback`. A message whose
 * intercept fails is set aside rather than given a turn: it may be the
 * host's answer to a form, which no turn may read.
 */
const guardedCallbacks = ({ intercept, onOwnMessage, onIgnoredEdit, onSetAside, laneOf, isEditable, onFailure }: FollowInboxOptions) => {
  /** `callback`, or `absent` without one; `failed` when it throws. */
  const guard =
    <A extends unknown[], R>(where: string, callback: ((...args: A) => R) | undefined, absent: R, failed: R = absent) =>
    (...args: A): R => {
      if (callback === undefined) return absent;
      try {
        return callback(...args);
      } catch (error) {
        onFailure?.(where, error, args[0] as InboxMessage | undefined);
        return failed;
      }
    };
  return {
    intercept: guard('intercept', intercept, false, true),
    onOwnMessage: guard('own-message', onOwnMessage, undefined),
    onIgnoredEdit: guard('ignored-edit', onIgnoredEdit, undefined),
    onSetAside: guard('set-aside', onSetAside, undefined),
    laneOf: guard('lane', laneOf, ''),
    isEditable: guard('editable', isEditable, false),
  };
};

/**
 * Starts the turns of the mail that is ready, at most `concurrency` at once
 * (a turn that waits, parked, leaves its place), one at a time per lane.
 */
const makeTurnScheduler = (
  mail: ReturnType<typeof makeMailState>,
  { onMessage, concurrency, onFailure, laneOf, onIgnoredEdit }: Pick<FollowInboxOptions, 'onMessage' | 'onFailure'> & {
    concurrency: number;
    laneOf: (message: InboxMessage) => string;
    onIgnoredEdit: ((message: InboxMessage) => void) | undefined;
  },
  halt: Promise<typeof STOP>,
) => {
  const { waiting, running } = mail;
  let readerEnded = false;
  // Resolved when mail arrives or a turn ends: the scheduler looks again.
  let wake = makeLocalKit<void>();
  // Resolved when a turn takes a message up, so a full backlog reads on.
  let taken = makeLocalKit<void>();
  const busyLanes = new Set<string>();
  /** Turns running that wait (park), whose places others may take. */
  let parked = 0;

  const park = () => {
    parked += 1;
    wake.resolve();
    let back = false;
    return () => {
      if (back) return;
      back = true;
      parked -= 1;
    };
  };

  /** The turn ended: its message is over, or waits again for its revision. */
  const ended = (turn: Running, ready: InboxMessage, end: TurnEnd | void) => {
    running.delete(turn.number);
    busyLanes.delete(turn.lane);
    wake.resolve();
    if (turn.latest !== undefined && end === 'revised') {
      // Given up for the revision: it waits (for done) like new mail.
      waiting.set(ready.number, turn.latest);
      return;
    }
    closeTurn(mail, ready.number, turn.seen, end);
    if (turn.latest !== undefined) onIgnoredEdit?.(turn.latest);
  };

  const start = (ready: InboxMessage, lane: string) => {
    waiting.delete(ready.number);
    taken.resolve();
    taken = makeLocalKit<void>();
    const turn: Running = { number: ready.number, lane, seen: seenOf(ready), revised: makeLocalKit<InboxMessage>() };
    running.set(turn.number, turn);
    busyLanes.add(lane);
    const answered = makeLocalKit<void>();
    // Frozen, not hardened: the turn's own, made for every message
    // (hardening would walk the fresh function in it).
    const signals: TurnSignals = Object.freeze({ revised: turn.revised.promise, park, answered: () => answered.resolve() });
    // A turn that fails, even at once, fails alone: it is over, and fae reads on.
    const end = Promise.resolve()
      .then(() => onMessage(ready, signals))
      .then(
        outcome => ended(turn, ready, outcome),
        error => {
          onFailure?.('turn', error, ready);
          ended(turn, ready, 'answered');
        },
      );
    return Promise.race([answered.promise, end]);
  };

  /** Starts the turns of the messages ready for one; when the first started has answered, if any. */
  const startReady = () => {
    let first: Promise<void> | undefined;
    for (;;) {
      const lanes = new Map<bigint, string>();
      const free = (message: InboxMessage) => {
        const lane = laneOf(message);
        lanes.set(message.number, lane);
        return !busyLanes.has(lane);
      };
      const ready = running.size - parked < concurrency ? waiting.nextFinished(free) : undefined;
      if (ready === undefined) return first;
      const answered = start(ready, lanes.get(ready.number) ?? '');
      first ??= answered;
    }
  };

  /** Looks again whenever mail arrives or a turn ends; resolves once the mail has ended and every turn with it. */
  const schedule = async () => {
    for (;;) {
      // What the first turn started waits for, only reading waits on.
      inBackground(startReady(), REPORTED_ALREADY);
      if (readerEnded && running.size === 0) return;
      // eslint-disable-next-line no-await-in-loop -- nothing to do until mail arrives or a turn ends
      if ((await Promise.race([wake.promise, halt])) === STOP) return;
      wake = makeLocalKit<void>();
    }
  };

  return {
    startReady,
    schedule,
    taken: () => taken.promise,
    /** No more mail will come. */
    readerEnded: () => {
      readerEnded = true;
      wake.resolve();
    },
  };
};

export const followInbox = async (daemon: Pick<DaemonAdapter, 'followMessages' | 'isOwnMessage'>, options: FollowInboxOptions) => {
  const { cancelled, onMessage, concurrency = 1, onFailure } = options;
  const { intercept, onOwnMessage, onIgnoredEdit, onSetAside, laneOf, isEditable } = guardedCallbacks(options);
  // Settles when fae is cancelled, or when reading fails.
  const halt = makePromiseKit<typeof STOP>();
  inBackground(
    cancelled.promise.then(() => halt.resolve(STOP)),
    REPORTED_ALREADY, // a cancellation only resolves
  );
  const reader = daemon.followMessages();
  const mail = makeMailState(onSetAside);
  const scheduler = makeTurnScheduler(mail, { onMessage, concurrency, onFailure, laneOf, onIgnoredEdit }, halt.promise);
  const reading = readMail(reader, daemon, mail, {
    halt: halt.promise,
    // A turn starts as its message arrives, before anything else is read.
    arrived: scheduler.startReady,
    taken: scheduler.taken,
    intercept,
    onOwnMessage,
    onIgnoredEdit,
    isEditable,
  }).then(scheduler.readerEnded);
  try {
    // Whichever fails first stops the other.
    await Promise.all([
      reading.catch(error => {
        halt.reject(error);
        throw error;
      }),
      scheduler.schedule(),
    ]);
  } finally {
    halt.resolve(STOP);
    // Ends the daemon-side generator without waiting for it (nothing to do if it cannot).
    inBackground(reader.return?.(), REPORTED_ALREADY);
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
  const ended = makeLocalKit<undefined>();
  const outcome = Promise.race([cancelled.promise, byRevision, ended.promise]);
  const reason = outcome.then(error => error ?? new Promise<never>(() => {}));
  // Frozen, not hardened: the turn's own, never handed out, and made for
  // every message (harden walks each function, some µs apiece).
  return Object.freeze({
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

// Progress in one reply (issue 16): a turn that has not answered after
// FAE_PROGRESS_AFTER_MS posts one reply to its message, "Working on it…".
// Where fae can edit what it sent (August), that same reply then follows
// the turn ("calling greet…", the model's text as it streams) marked not
// done, and finally becomes the answer, done: one message in the person's
// transcript, never a stream of notices. Where it cannot (February, May),
// only a turn five times as long gets one interim reply, and the answer
// follows as a reply of its own. A fast turn posts nothing.
//
// An edit names fae's own copy of the reply by its number in fae's inbox,
// which only the copy tells (reply returns nothing): the copy is picked
// out by what it answers and its text as it arrives (noteOwnCopy).
import type { DaemonAdapter, InboxMessage } from '../../daemon/adapter.js';
import type { Logger } from '../../logging/log.js';
import type { OwnCopyWaits } from './own-copy-waits.js';
import { REPORTED_ALREADY, inBackground } from '../../background.js';

export const WORKING = 'Working on it…';
const STILL_WAITING = 'still waiting for the model';
/** What an edited reply says when the model answered by a tool of its own. */
export const ANSWERED_ELSEWHERE = 'Done (answered in another message).';
/** Edits of one reply, at most one per this many ms: each reaches the person. */
const EDIT_EVERY_MS = 1000;
/** A model call quiet this long (unless FAE's settings say less) is shown as waited for. */
export const QUIET_MS = 10_000;
/** How much of a streamed answer a progress edit shows (its end). */
const SHOWN_CHARS = 4000;
/** Messages whose reply outlives a turn given up for a revision, at most. */
const KEPT_REPLIES = 1024;

export interface ProgressReplyOptions {
  readonly afterMs: number;
  readonly logger: Logger;
  /** Told when a model call has streamed nothing for a while. */
  readonly onWaiting?: (number: bigint) => void;
  /** How long a quiet model call goes before the reply says fae is still waiting (QUIET_MS). */
  readonly quietMs?: number;
  /** Where fae's own copies of its replies are picked out. */
  readonly copies: OwnCopyWaits;
}

/** One message's progress reply: what it says now, and where it is. */
interface Reply {
  readonly message: InboxMessage;
  /** What the reply should say now. */
  status: string;
  /** Posted (the reply was sent). */
  posted: boolean;
  /** The number of fae's own copy, once known (undefined when it never came). */
  copy: Promise<bigint | undefined> | undefined;
  /** The text the daemon shows now, and the edit under way. */
  shown: string;
  editing: Promise<void> | undefined;
  /** When it was last edited; set ahead to hold the first edit back. */
  lastEdit: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** It is the answer now (or being made so): nothing may mark it not done again. */
  concluded: boolean;
}

/**
 * Bringing a reply up to what it should say: posting it, editing it (at
 * most once per EDIT_EVERY_MS, the latest text winning), and making it
 * the answer.
 */
const makeReplyEditor = (daemon: DaemonAdapter, { logger, copies }: Pick<ProgressReplyOptions, 'logger' | 'copies'>) => {
  const waitForCopy = (reply: Reply, text: string) => {
    const { messageId } = reply.message;
    return !daemon.canEdit || messageId === undefined ? undefined : copies.expect(messageId, text);
  };

  /** Posts the progress reply; logs its own failures. */
  const post = async (reply: Reply) => {
    reply.posted = true;
    // Posted as fae's own words: a reply arrives done, and the start of a
    // streamed answer would read as the whole of it. What streamed in
    // follows as an edit, marked not done.
    const text = reply.status.startsWith(WORKING) ? reply.status : WORKING;
    reply.copy = waitForCopy(reply, text);
    try {
      await daemon.reply(reply.message.number, [text]);
      logger.event('progress-posted', { message: reply.message.number });
    } catch (error) {
      logger.warn('progress-failed', { message: reply.message.number, error });
      reply.copy = undefined;
      return;
    }
    // A new message arrives done; the first edit marks it as still being
    // written (done: false), as the daemon's partial messages are, so a
    // reader knows more is coming.
    update(reply);
  };

  /** Brings the reply up to its status, at most one edit per EDIT_EVERY_MS. */
  const update = (reply: Reply) => {
    if (reply.concluded || !reply.posted || reply.copy === undefined) return;
    if (reply.editing !== undefined || reply.timer !== undefined) return;
    if (reply.status === reply.shown) return;
    const wait = reply.lastEdit + EDIT_EVERY_MS - Date.now();
    if (wait > 0) {
      reply.timer = setTimeout(() => {
        reply.timer = undefined;
        update(reply);
      }, wait);
      reply.timer.unref?.();
      return;
    }
    const text = reply.status;
    reply.editing = (async () => {
      const copy = await reply.copy;
      if (copy === undefined) return;
      await daemon.edit(copy, [text], false);
      reply.shown = text;
    })()
      .catch(error => logger.warn('progress-failed', { message: reply.message.number, error }))
      .finally(() => {
        reply.editing = undefined;
        reply.lastEdit = Date.now();
        update(reply);
      });
  };

  const setStatus = (reply: Reply, status: string) => {
    reply.status = status;
    update(reply);
  };

  /** Ends a reply's timers; what it shows stays. */
  const quiet = (reply: Reply) => {
    clearTimeout(reply.timer);
    reply.timer = undefined;
  };

  /**
   * Makes the reply say `text`, done: true when it is the answer. False
   * when there is no reply to edit (none posted, or fae cannot edit): the
   * answer then goes as a reply of its own.
   */
  const conclude = async (reply: Reply, strings: readonly string[]) => {
    reply.concluded = true;
    quiet(reply);
    const copy = reply.posted && reply.copy !== undefined ? await reply.copy : undefined;
    if (copy === undefined) return false;
    await reply.editing;
    try {
      await daemon.edit(copy, strings, true);
      return true;
    } catch (error) {
      logger.warn('progress-failed', { message: reply.message.number, error });
      return false;
    }
  };

  return harden({ post, setStatus, quiet, conclude });
};

type ReplyEditor = ReturnType<typeof makeReplyEditor>;

/** What a turn's progress needs besides its reply. */
interface ProgressContext {
  readonly daemon: DaemonAdapter;
  readonly editor: ReplyEditor;
  readonly logger: Logger;
  readonly onWaiting?: ProgressReplyOptions['onWaiting'];
  readonly quietMs: number;
}

/**
 * The progress of one turn, shown in `reply`: `first` is the timer that
 * posts it (or edits an earlier answer), `forget` lets the reply go once
 * the turn has its answer.
 */
const progressOf = (
  { daemon, editor, logger, onWaiting, quietMs }: ProgressContext,
  reply: Reply,
  first: ReturnType<typeof setTimeout> | undefined,
  forget: () => void,
) => {
  const { post, setStatus, quiet, conclude } = editor;
  const { message } = reply;
  let streamed = '';
  /** How far the server last said the model had read the prompt, if it said (llama.cpp). */
  let readPercent: number | undefined;
  let quietTimer: ReturnType<typeof setTimeout> | undefined;
  const stopTimers = () => {
    clearTimeout(first);
    clearTimeout(quietTimer);
    quiet(reply);
  };
  /** If the model call stays quiet for quietMs, the reply says fae is still waiting. */
  const watchQuiet = () => {
    clearTimeout(quietTimer);
    quietTimer = setTimeout(() => {
      // The server reports its reading in large steps (a batch of the prompt): between them it is still reading.
      const waitingText =
        readPercent === undefined ? STILL_WAITING : `the model is still reading the conversation (${readPercent}% when it last said)`;
      setStatus(reply, streamed === '' ? `${WORKING} ${waitingText}` : `${streamed}\n\n(${STILL_WAITING}…)`);
      onWaiting?.(message.number);
    }, quietMs);
    quietTimer.unref?.();
  };
  // Frozen, not hardened: the turn's own, never handed out, and made for
  // every message (harden walks each of these functions, some µs apiece).
  return Object.freeze({
    /** A model call begins. */
    waiting: watchQuiet,
    tool: (name: string) => {
      clearTimeout(quietTimer);
      streamed = '';
      readPercent = undefined;
      setStatus(reply, `${WORKING} calling ${name}`);
    },
    /** The server says how far the model has read the prompt (llama.cpp). */
    reading: ({ processed, total }: { readonly processed: number; readonly total: number }) => {
      if (total <= 0 || streamed !== '') return;
      readPercent = Math.floor((processed / total) * 100);
      watchQuiet();
      setStatus(reply, `${WORKING} the model is reading the conversation, ${readPercent}%.`);
    },
    text: (delta: string) => {
      clearTimeout(quietTimer);
      streamed = `${streamed}${delta}`.slice(-SHOWN_CHARS);
      setStatus(reply, streamed);
      watchQuiet();
    },
    /**
     * The turn waits for the host's approval: the reply says `text`.
     * With `now`, the sender reads it at once: a reply not posted yet is
     * posted with it, and where fae cannot edit, one posted before is
     * followed by `text` as a reply of its own.
     */
    awaiting: (text: string, { now }: { now: boolean }) => {
      clearTimeout(quietTimer);
      streamed = '';
      if (!reply.posted && now) {
        clearTimeout(first);
        reply.status = text;
        inBackground(post(reply), REPORTED_ALREADY);
        return;
      }
      setStatus(reply, text);
      // Said already (by a reply from before a restart): not said again.
      if (reply.posted && now && !daemon.canEdit && reply.shown !== text) {
        reply.shown = text;
        daemon.reply(message.number, [text]).catch(error => logger.warn('progress-failed', { message: message.number, error }));
      }
    },
    /** The answer (redacted, in strings the daemon takes): true when it went as the edited reply. */
    answer: (strings: readonly string[]) => {
      stopTimers();
      forget();
      return conclude(reply, strings);
    },
    /** The model answered by a tool: the reply, if any, says so. */
    answeredElsewhere: async () => {
      stopTimers();
      forget();
      await conclude(reply, [ANSWERED_ELSEWHERE]);
    },
    /** The turn was given up (a revision redoes it): the reply stays for the redo. */
    abandon: stopTimers,
    /** fae's own copy of the reply, when one was posted where fae can edit. */
    copy: () => (reply.posted ? reply.copy : undefined),
  });
};

export const makeProgressReplies = (
  daemon: DaemonAdapter,
  { afterMs, logger, onWaiting, copies, quietMs = QUIET_MS }: ProgressReplyOptions,
) => {
  const editor = makeReplyEditor(daemon, { logger, copies });
  const context: ProgressContext = { daemon, editor, logger, onWaiting, quietMs };
  /** Replies of messages still being worked on (a revision redoes the turn, keeping the reply). */
  const replies = new Map<bigint, Reply>();

  /**
   * The progress of one turn of `message`. With `answered`, fae's own copy
   * of its earlier answer to it (an edit of a message fae answered), that
   * answer is the reply that shows the progress and becomes the new answer.
   * With `left`, a progress reply of fae's that a restart left unfinished,
   * that reply is this turn's: on August it becomes the answer; elsewhere
   * no second one says the same.
   */
  const start = (message: InboxMessage, answered?: Promise<bigint | undefined>, left?: { readonly copy: bigint; readonly text: string }) => {
    const delay = daemon.canEdit ? afterMs : afterMs * 5;
    const reply: Reply = replies.get(message.number) ?? {
      message,
      status: WORKING,
      posted: answered !== undefined || left !== undefined,
      copy: answered ?? (left !== undefined && daemon.canEdit ? Promise.resolve(left.copy) : undefined),
      shown: left?.text ?? '',
      editing: undefined,
      // An earlier answer being redone (an edit) changes only after the
      // same grace a new reply waits for: a fast redo goes straight to the answer.
      lastEdit: answered === undefined ? 0 : Date.now() + delay - EDIT_EVERY_MS,
      timer: undefined,
      concluded: false,
    };
    replies.set(message.number, reply);
    if (replies.size > KEPT_REPLIES) replies.delete(replies.keys().next().value as bigint);
    // A new reply is posted; an earlier answer being redone (an edit) is
    // edited to say fae is working on it again.
    const redo = answered !== undefined && reply.shown === '';
    const first = reply.posted
      ? redo
        ? setTimeout(() => editor.setStatus(reply, reply.status), delay)
        : undefined
      : setTimeout(() => inBackground(editor.post(reply), REPORTED_ALREADY), delay);
    first?.unref?.();
    return progressOf(context, reply, first, () => replies.delete(message.number));
  };

  return harden({ start });
};
harden(makeProgressReplies);
export type ProgressReplies = ReturnType<typeof makeProgressReplies>;
export type TurnProgress = ReturnType<ProgressReplies['start']>;

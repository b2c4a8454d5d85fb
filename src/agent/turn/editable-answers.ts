// Edits after the answer (issue 16, August): the latest answered messages
// of each thread stay in fae's inbox for a while, undismissed, so their
// sender can still edit them (the daemon refuses an edit of a dismissed
// message); an edit then starts a new turn whose answer replaces fae's
// earlier answer, edited in place, so the transcript pairs the edited
// question with its answer. Bounded: FAE_EDITABLE_TURNS per thread, for
// FAE_EDITABLE_MS, and EDITABLE_LIMIT in all; what leaves is dismissed as
// any answered message is, with fae's own copy of its answer.
import { REPORTED_ALREADY, inBackground } from '../../background.js';

/** Messages kept editable in all, at most (the oldest leave first). */
export const EDITABLE_LIMIT = 256;

export interface EditableAnswersOptions {
  /** Answered messages kept editable per thread (FAE_EDITABLE_TURNS). */
  readonly perThread: number;
  /** How long each stays editable, in ms (FAE_EDITABLE_MS). */
  readonly keepMs: number;
  /** Dismisses a message of fae's inbox (a refusal is fae's to log). */
  readonly dismiss: (number: bigint) => Promise<unknown>;
}

interface Kept {
  readonly number: bigint;
  readonly thread: string;
  /** fae's own copy of its answer, once known (undefined: it never came). */
  readonly answer: Promise<bigint | undefined>;
  readonly timer: ReturnType<typeof setTimeout>;
}

export const makeEditableAnswers = ({ perThread, keepMs, dismiss }: EditableAnswersOptions) => {
  /** In the order they were kept. */
  const kept = new Map<bigint, Kept>();
  /** Own copies of kept answers: conversations must not dismiss them yet. */
  const answerCopies = new Set<bigint>();

  /** Stops keeping `number` editable; its answer copy is returned, still held. */
  const take = (number: bigint) => {
    const entry = kept.get(number);
    if (entry === undefined) return undefined;
    kept.delete(number);
    clearTimeout(entry.timer);
    return entry;
  };

  /**
   * Dismisses fae's copy of an answer once it is known, unless it is the
   * copy `unless` turns out to be. (The copies' promises only resolve,
   * undefined when a copy never came; dismiss logs its own failures.)
   */
  const dismissCopy = (answer: Promise<bigint | undefined>, unless?: Promise<bigint | undefined>) =>
    inBackground(
      Promise.all([answer, unless]).then(async ([copy, kept]) => {
        if (copy === undefined || copy === kept) return;
        answerCopies.delete(copy);
        await dismiss(copy);
      }),
      REPORTED_ALREADY,
    );

  /** `number` is no longer editable: it and fae's copy of its answer are dismissed. */
  const release = (number: bigint) => {
    const entry = take(number);
    if (entry === undefined) return;
    inBackground(dismiss(number), REPORTED_ALREADY);
    dismissCopy(entry.answer);
  };

  return harden({
    /**
     * Keeps message `number` of `thread` editable, with `answer`, fae's own
     * copy of its answer; `replaced`, the copy of an earlier answer to it
     * (an edit was answered), is dismissed unless it is the same copy.
     */
    keep: (number: bigint, thread: string, answer: Promise<bigint | undefined>, replaced?: Promise<bigint | undefined>) => {
      release(number);
      // The copy of the earlier answer goes, unless it is this answer's too.
      if (replaced !== undefined) dismissCopy(replaced, answer);
      const timer = setTimeout(() => release(number), keepMs);
      timer.unref?.();
      kept.set(number, { number, thread, answer, timer });
      inBackground(
        answer.then(copy => {
          if (copy !== undefined && kept.get(number)?.answer === answer) answerCopies.add(copy);
        }),
        REPORTED_ALREADY,
      );
      // Past the bounds, the oldest of the thread, then the oldest of all, leave.
      const ofThread = [...kept.values()].filter(entry => entry.thread === thread);
      for (const entry of ofThread.slice(0, Math.max(0, ofThread.length - perThread))) release(entry.number);
      while (kept.size > EDITABLE_LIMIT) release(kept.keys().next().value as bigint);
    },
    /** Whether message `number` is kept editable: an edit of it is answered anew. */
    has: (number: bigint) => kept.has(number),
    /**
     * An edit of `number` is being answered: it is no longer kept (its turn
     * keeps it again when done, passing this as `replaced`); resolves to
     * fae's copy of the earlier answer, still held.
     */
    take: (number: bigint) => take(number)?.answer,
    /** An answer taken for an edit that is not kept after all: its copy is dismissed. */
    discard: (answer: Promise<bigint | undefined>) => dismissCopy(answer),
    /** Whether `copy` is fae's own copy of an answer still editable (not to be dismissed yet). */
    holdsCopy: (copy: bigint) => answerCopies.has(copy),
    /**
     * Dismisses what is kept of the threads `forgotten` picks: a forgotten
     * conversation is not brought back by an edit, nor by a restart that
     * finds its answered messages (message-turn.ts).
     */
    releaseThreads: (forgotten: (thread: string) => boolean) => {
      for (const [number, entry] of [...kept]) if (forgotten(entry.thread)) release(number);
    },
    /** Dismisses everything still kept (fae stops). */
    releaseAll: () => {
      for (const number of [...kept.keys()]) release(number);
    },
  });
};
harden(makeEditableAnswers);
export type EditableAnswers = ReturnType<typeof makeEditableAnswers>;

// What fae does with its own copy of a message it sent. One that answers
// a message links that thread to the copy's id: it waits (own-copies.ts)
// until the link is stored, with the thread's next record or on its own
// after a pause (link-writes.ts), or the thread is forgotten, and is then
// dismissed, so that fae's inbox does not grow with its answers. One that
// answers nothing teaches nothing and is dismissed at once.
import type { MessageRecord } from '../../daemon/endo-types.js';
import type { Logger } from '../../logging/log.js';
import { makeKeyedWaits } from '../../keyed-waits.js';
import { ownCopyLink, type OwnCopies, type OwnCopy } from './own-copies.js';

/**
 * How long a finished turn waits for fae's own copy of its answer, so that
 * the copy's link goes with the turn's own record and needs no second
 * write: the copy is in fae's inbox before the reply returns, so it comes
 * with the inbox's next read. One that takes longer is linked as ever.
 */
export const ANSWER_COPY_WAIT_MS = 100;

export interface OwnCopyLinksOptions {
  readonly ownCopies: OwnCopies;
  /** The key of the conversation of `correspondent` that message `id` is in, if any. */
  readonly keyOf: (id: string, correspondent: string) => Promise<string | undefined>;
  /** Whether every stored conversation can be read now (else a thread may be in one that cannot). */
  readonly storeReadable: () => boolean;
  readonly logger: Logger;
  /** Dismisses fae's own copies (by number). */
  readonly dismissOwnCopies: (numbers: readonly bigint[]) => Promise<void>;
  /** Whether message `id` is known to be among those conversation `key` has recorded as fae's (a turn's `sent`). */
  readonly isLinked: (id: string, key: string) => boolean;
  /** A copy of conversation `key` of `correspondent` now waits for its link to be stored (link-writes.ts). */
  readonly waiting: (key: string, correspondent: string) => void;
  readonly answerWaitMs?: number;
}

export const makeOwnCopyLinks = ({
  ownCopies,
  keyOf,
  storeReadable,
  logger,
  dismissOwnCopies,
  isLinked,
  waiting,
  answerWaitMs = ANSWER_COPY_WAIT_MS,
}: OwnCopyLinksOptions) => {
  /** Turns waiting for the own copy of their answer, by the id of the message answered. */
  const arrivals = makeKeyedWaits<void>(answerWaitMs);

  /** Where an own copy linking `link` is placed. */
  const place = async (number: bigint, link: { readonly messageId: string; readonly replyTo: string }, correspondent: string) => {
    const key = await keyOf(link.replyTo, correspondent);
    if (key === undefined && !storeReadable()) {
      // Its thread may be in a stored conversation that cannot be read
      // now: the copy stays in the inbox, kept, and a restart relearns it.
      return;
    }
    if (key === undefined) {
      // Its thread is gone (forgotten, or folded past EARLIER_IDS): no
      // reply to it can be placed.
      logger.event('own-copy-unplaced', { message: number });
      await dismissOwnCopies(harden([number]));
      return;
    }
    if (isLinked(link.messageId, key)) {
      // Its link is recorded already: a copy read again, as after a restart
      // (an answer kept open to edits stays in the inbox). Linking it again
      // would put its id in the next turn's record too.
      await dismissOwnCopies(harden([number]));
      return;
    }
    // Past the bound the oldest stays in the inbox: kept, not lost.
    ownCopies.add(harden({ number, ...link, key }));
    waiting(key, correspondent);
  };

  return harden({
    /** The copies whose links conversation `key` stores with its next record. */
    of: (key: string) => ownCopies.of(key),
    /** Their links are stored (or their conversation gone): they may go. */
    release: async (copies: readonly OwnCopy[]) => {
      const released = ownCopies.release(copies);
      if (released.length === 0) return;
      await dismissOwnCopies(harden(released.map(copy => copy.number)));
    },
    /**
     * fae's own copy of a message it sent, from `correspondent`'s side.
     * Resolves once a copy that teaches nothing (no reply) is dismissed;
     * one that does waits for its conversation's next record.
     */
    note: async (message: MessageRecord, correspondent: string) => {
      const { number } = message;
      const link = ownCopyLink(message);
      if (link === undefined) {
        await dismissOwnCopies(harden([number]));
        return;
      }
      try {
        await place(number, link, correspondent);
      } finally {
        arrivals.settle(link.replyTo, undefined);
      }
    },
    /**
     * Resolves once fae's own copy of its answer to message `replyTo`, of
     * conversation `key`, is placed (its link then goes with the turn's
     * record), or after answerWaitMs.
     */
    answerCopy: async (key: string, replyTo: string): Promise<void> => {
      if (ownCopies.of(key).some(copy => copy.replyTo === replyTo)) return;
      // A newer wait for the same message replaces the older (which goes on).
      await arrivals.wait(replyTo, undefined);
    },
  });
};
harden(makeOwnCopyLinks);
export type OwnCopyLinks = ReturnType<typeof makeOwnCopyLinks>;

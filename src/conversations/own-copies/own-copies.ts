// src/conversations/own-copies/: fae's own copies of what it sent, and the
// links from them to the threads they answer.
// Imports: the layers below src/conversations, and the rest of it.
//
// fae's own copies of the messages it sent, kept until the link from each
// to the thread it answers is stored (with that thread's next record, or
// on its own after a pause: link-writes.ts), or the thread is forgotten. A copy may come many turns late (a burst of
// mail keeps fae's reader behind its turns), or, after a restart, before
// its thread is read back; it waits here, found by number, by message id
// and by the conversation it belongs to, never by scanning them all.
import type { MessageRecord } from '../../daemon/endo-types.js';

/** A copy of a message fae sent. */
export interface OwnCopy {
  readonly number: bigint;
  readonly messageId: string;
  readonly replyTo: string;
  /** The conversation that held `replyTo` when the copy came. */
  readonly key: string;
}

/** Own copies kept at most; past it the oldest stays in the inbox, unlinked. */
export const OWN_COPIES_LIMIT = 4096;

/** How many links of a chain of own copies are followed to what they answer. */
const CHAIN_LIMIT = 8;

export const makeOwnCopies = () => {
  const byNumber = new Map<bigint, OwnCopy>();
  const byMessageId = new Map<string, OwnCopy>();
  const byKey = new Map<string, Set<OwnCopy>>();

  const remove = (copy: OwnCopy) => {
    byNumber.delete(copy.number);
    if (byMessageId.get(copy.messageId) === copy) byMessageId.delete(copy.messageId);
    const forKey = byKey.get(copy.key);
    forKey?.delete(copy);
    if (forKey?.size === 0) byKey.delete(copy.key);
  };

  /**
   * The id a chain of own copies leads back to from `id`: what fae's own
   * messages whose links are not stored yet answered.
   */
  const origin = (id: string) => {
    let current = id;
    for (let step = 0; step < CHAIN_LIMIT; step += 1) {
      const copy = byMessageId.get(current);
      if (copy === undefined) return current;
      current = copy.replyTo;
    }
    return current;
  };

  return harden({
    add: (copy: OwnCopy) => {
      // A revision of a copy already kept (an edited message) replaces it.
      const before = byNumber.get(copy.number);
      if (before !== undefined) remove(before);
      byNumber.set(copy.number, copy);
      byMessageId.set(copy.messageId, copy);
      byKey.set(copy.key, (byKey.get(copy.key) ?? new Set()).add(copy));
      if (byNumber.size > OWN_COPIES_LIMIT) remove(byNumber.values().next().value as OwnCopy);
    },
    origin,
    /** The copies that belong to conversation `key`. */
    of: (key: string): readonly OwnCopy[] => [...(byKey.get(key) ?? [])],
    /**
     * Their links are stored, or their conversation is gone; those still
     * kept until now (a link may be stored twice: by a turn's record and
     * on its own, see link-writes.ts).
     */
    release: (copies: readonly OwnCopy[]) =>
      copies.filter(copy => {
        if (byNumber.get(copy.number) !== copy) return false;
        remove(copy);
        return true;
      }),
    size: () => byNumber.size,
  });
};
harden(makeOwnCopies);
export type OwnCopies = ReturnType<typeof makeOwnCopies>;

/** What links an own copy to a thread: its id and what it replies to; undefined when it has none. */
export const ownCopyLink = ({ messageId, replyTo }: MessageRecord) =>
  typeof messageId === 'string' && messageId !== '' && typeof replyTo === 'string' && replyTo !== ''
    ? { messageId, replyTo }
    : undefined;
harden(ownCopyLink);

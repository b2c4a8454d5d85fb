// Waiting for fae's own copy of a reply it sent. A reply returns nothing,
// yet editing it later (a progress reply, an answer the sender may edit
// the question of) names fae's own copy by its number in fae's inbox: the
// copy is picked out, as it arrives, by the message it answers and its
// text. A copy that does not come in time is given up on (undefined).
import type { InboxMessage } from '../../daemon/adapter.js';
import { messageText } from '../../daemon/message-format.js';
import { makeKeyedWaits } from '../../keyed-waits.js';

/** How long an own copy may take to arrive before fae stops waiting for it. */
export const COPY_WAIT_MS = 10_000;

export const makeOwnCopyWaits = (waitMs = COPY_WAIT_MS) => {
  /** By the id of the message the reply answers, with the text expected. */
  const waits = makeKeyedWaits<bigint, string>(waitMs);
  return harden({
    /**
     * Resolves with the number of fae's own copy of the reply `text` to the
     * message `replyTo`, to be sent next; undefined if none comes in time.
     * A newer wait for the same message replaces the older (which gives up).
     */
    expect: (replyTo: string, text: string): Promise<bigint | undefined> => waits.wait(replyTo, text),
    /** fae's own copy of something it sent: true when someone waited for it. */
    note: (copy: InboxMessage) =>
      copy.replyTo !== undefined && waits.detailOf(copy.replyTo) === messageText(copy) && waits.settle(copy.replyTo, copy.number),
  });
};
harden(makeOwnCopyWaits);
export type OwnCopyWaits = ReturnType<typeof makeOwnCopyWaits>;

// Waiting for fae's own copy of a reply it sent. A reply returns nothing,
// yet editing it later (a progress reply, an answer the sender may edit
// the question of) names fae's own copy by its number in fae's inbox: the
// copy is picked out, as it arrives, by the message it answers and its
// text. A copy that does not come in time is given up on (undefined).
import { makePromiseKit } from '@endo/promise-kit';
import type { InboxMessage } from '../daemon/adapter.js';
import { messageText } from '../daemon/message-format.js';

/** How long an own copy may take to arrive before fae stops waiting for it. */
export const COPY_WAIT_MS = 10_000;

export const makeOwnCopyWaits = (waitMs = COPY_WAIT_MS) => {
  /** By the id of the message the reply answers: the text expected, and who waits. */
  const waits = new Map<string, { readonly text: string; readonly found: (number: bigint | undefined) => void }>();
  return harden({
    /**
     * Resolves with the number of fae's own copy of the reply `text` to the
     * message `replyTo`, to be sent next; undefined if none comes in time.
     */
    expect: (replyTo: string, text: string): Promise<bigint | undefined> => {
      const { promise, resolve } = makePromiseKit<bigint | undefined>();
      // A newer wait for the same message replaces the older (which gives up).
      waits.get(replyTo)?.found(undefined);
      waits.set(replyTo, { text, found: resolve });
      const timer = setTimeout(() => resolve(undefined), waitMs);
      timer.unref?.();
      void promise.then(() => {
        clearTimeout(timer);
        if (waits.get(replyTo)?.found === resolve) waits.delete(replyTo);
      });
      return promise;
    },
    /** fae's own copy of something it sent: true when someone waited for it. */
    note: (copy: InboxMessage) => {
      const wait = copy.replyTo === undefined ? undefined : waits.get(copy.replyTo);
      if (wait === undefined || messageText(copy) !== wait.text) return false;
      wait.found(copy.number);
      return true;
    },
  });
};
harden(makeOwnCopyWaits);
export type OwnCopyWaits = ReturnType<typeof makeOwnCopyWaits>;

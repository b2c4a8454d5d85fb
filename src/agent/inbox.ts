// Following fae's mail: replayed and new messages come one at a time, each
// number at most once (the daemon may yield a message twice), fae's own
// sent copies skipped, until the agent is cancelled.
import { E } from '@endo/far';
import type { GuestPowers, MessageRecord, Ref } from '../daemon/endo-types.js';
import { makeRefIterator } from '../daemon/ref-iterator.js';
import type { Cancellation } from './cancellation.js';

export interface FollowInboxOptions {
  /** fae's own handle id: messages from it are its own sent copies. */
  readonly selfId: string;
  readonly cancelled: Cancellation;
  readonly onMessage: (message: MessageRecord) => Promise<void>;
  /** Told of fae's own sent copies, which are otherwise skipped. */
  readonly onOwnMessage?: (message: MessageRecord) => void;
}

const STOP: unique symbol = Symbol('stop');

export const followInbox = async (
  powers: Ref<GuestPowers>,
  { selfId, cancelled, onMessage, onOwnMessage }: FollowInboxOptions,
) => {
  const stop: Promise<typeof STOP> = cancelled.promise.then(() => STOP);
  const iterator = makeRefIterator(E(powers).followMessages()) as AsyncIterator<MessageRecord>;
  const seen = new Set<bigint>();
  try {
    for (;;) {
      // eslint-disable-next-line no-await-in-loop
      const next = await Promise.race([iterator.next(), stop]);
      if (next === STOP || next.done) {
        return;
      }
      const message = next.value;
      if (seen.has(message.number)) {
        continue;
      }
      if (message.from === selfId) {
        seen.add(message.number);
        onOwnMessage?.(message);
        continue;
      }
      seen.add(message.number);
      // eslint-disable-next-line no-await-in-loop
      const outcome = await Promise.race([onMessage(message), stop]);
      if (outcome === STOP) {
        return;
      }
    }
  } finally {
    // Ends the daemon-side generator; it may already be gone.
    iterator.return?.().catch(() => {});
  }
};
harden(followInbox);

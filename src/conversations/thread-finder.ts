// Which thread a message belongs to, by the rules of threads.ts. A
// message id is looked for, in this order, among the messages waiting in
// line or being answered (turn-lines.ts), in the index of recent ids (a
// held conversation), and in the correspondent's own threads, held or read
// back: never in anyone else's. fae's own messages whose ids are not
// stored yet lead back to what they answered (own-copies.ts).
import type { MessageRecord } from '../daemon/endo-types.js';
import { holdsMessage } from './conversation-state.js';
import type { ConversationMemory } from './conversation-memory.js';
import type { OwnCopies } from './own-copies/own-copies.js';
import type { ConversationStore } from './store/store.js';
import { MAIN_THREAD, conversationKey } from './threads.js';
import type { TurnLines } from './turn-lines.js';

export interface ThreadFinderOptions {
  readonly memory: ConversationMemory;
  readonly store: ConversationStore;
  readonly ownCopies: OwnCopies;
  readonly lines: TurnLines;
}

/** Where a message is: its conversation's key and thread. */
export interface ThreadPlace {
  readonly key: string;
  readonly thread: string;
}

/**
 * Threads one correspondent may have, at most. A reply to a message fae
 * knows in none of them opens a new one (a store directory and an index
 * entry each, and each read back to find where a later reply belongs);
 * past the bound it continues the main thread instead, so that no
 * correspondent can make fae keep, or search, more than this.
 */
export const THREADS_PER_CORRESPONDENT = 16;

/** What a message replies to; undefined for a fresh message. */
const replyToOf = ({ replyTo }: MessageRecord) => (typeof replyTo === 'string' && replyTo !== '' ? replyTo : undefined);

export const makeThreadFinder = ({ memory, store, ownCopies, lines }: ThreadFinderOptions) => {
  const { held } = memory;

  /** The keys of every thread `correspondent` has, stored or held. */
  const threadKeysOf = (correspondent: string) => new Set([...store.keysOf(correspondent), ...held.pinnedKeysOf(correspondent)]);

  /** Whether `correspondent` may open one more thread. */
  const mayOpen = (correspondent: string) => threadKeysOf(correspondent).size < THREADS_PER_CORRESPONDENT;

  /** Where message `id` of `correspondent` is, from what is in memory: no daemon call. */
  const knownPlaceOf = (messageId: string, correspondent: string): ThreadPlace | undefined => {
    const id = ownCopies.origin(messageId);
    const waiting = lines.placeOf(id, correspondent);
    if (waiting !== undefined) return waiting;
    const key = held.keyOfId(id);
    const conversation = key === undefined ? undefined : held.get(key);
    return conversation !== undefined && conversation.correspondent === correspondent && holdsMessage(conversation, id)
      ? conversation
      : undefined;
  };

  /**
   * Where message `messageId` of `correspondent` is: from memory, else
   * from that correspondent's own threads (held, or read back).
   */
  const placeOf = async (messageId: string, correspondent: string): Promise<ThreadPlace | undefined> => {
    const known = knownPlaceOf(messageId, correspondent);
    if (known !== undefined) return known;
    const id = ownCopies.origin(messageId);
    // One that cannot be read now is not searched; its next message tries again.
    const threads = await Promise.all([...threadKeysOf(correspondent)].map(key => memory.find(key, correspondent)));
    return threads.find(conversation => conversation !== undefined && holdsMessage(conversation, id));
  };

  return harden({
    placeOf,
    /** The thread `message` of `correspondent` continues or starts (threads.ts). */
    threadFor: async (message: MessageRecord, correspondent: string) => {
      const replyTo = replyToOf(message);
      if (replyTo === undefined) return MAIN_THREAD;
      const known = (await placeOf(replyTo, correspondent))?.thread;
      return known ?? (mayOpen(correspondent) ? replyTo : MAIN_THREAD);
    },
    /**
     * The scheduling lane of `message` from `correspondent`: the key of the
     * conversation it will most likely open, from what is in memory (no
     * daemon call). A hint only: a reply to a message of a stored thread not
     * read back yet gets a lane of its own though it may open that thread;
     * open() decides, and keeps the turns of one conversation in order.
     */
    laneOf: (message: MessageRecord, correspondent: string) => {
      const replyTo = replyToOf(message);
      if (replyTo === undefined) return conversationKey(correspondent, MAIN_THREAD);
      const known = knownPlaceOf(replyTo, correspondent)?.key;
      return known ?? conversationKey(correspondent, mayOpen(correspondent) ? replyTo : MAIN_THREAD);
    },
  });
};
harden(makeThreadFinder);
export type ThreadFinder = ReturnType<typeof makeThreadFinder>;

// Where fae finds a conversation: held in memory (held.ts), read back from
// the store (once, however many ask at the same time), or new; and the
// store kept in step with what is held (store-sync.ts). A refused read is
// never taken for "nothing stored": the conversation is answered in with
// its history unknown, and that history is read (and put first) once the
// store answers. A conversation the store is behind stays held until the
// store has it.
import type { Logger } from '../logging/log.js';
import type { Redact } from '../logging/redact.js';
import { conversationFromRecords, freshConversation, idsOfConversation, type Conversation } from './conversation-state.js';
import { makeHeldConversations } from './held.js';
import type { ConversationStore } from './store/store.js';
import { makeStoreSync } from './store/store-sync.js';
import { conversationKey } from './threads.js';

export interface ConversationMemoryOptions {
  readonly logger: Logger;
  readonly redact: Redact;
  /** FAE_HELD_CONVERSATIONS: conversations kept in memory besides those in use. */
  readonly heldLimit: number | undefined;
}

export const makeConversationMemory = (store: ConversationStore, { logger, redact, heldLimit }: ConversationMemoryOptions) => {
  // Bounded: a conversation not held is read back from the store.
  const held = makeHeldConversations<Conversation>(heldLimit, { idsOf: idsOfConversation });
  /** Stored conversations being read back, so that one is read once at a time. */
  const reading = new Map<string, Promise<Conversation | undefined>>();

  /** Notes which message ids are `conversation`'s. */
  const noteIds = (conversation: Conversation) => {
    for (const id of idsOfConversation(conversation)) held.noteId(id, conversation.key);
  };

  /** Holds `conversation` and notes which message ids are its. */
  const adopt = (conversation: Conversation) => {
    held.put(conversation);
    noteIds(conversation);
  };

  /**
   * The conversation stored under `key`, or undefined when nothing usable
   * is stored (unusable data is logged; a fresh start replaces it).
   * Rejects when the daemon refused the read: nothing is judged.
   */
  const readBack = async (key: string, correspondent: string, thread: string | undefined) => {
    const records = await store.load(key, correspondent, thread);
    if (records === undefined || records.length === 0) return undefined;
    const conversation = conversationFromRecords(key, correspondent, records);
    logger.event('conversation-restored', { conversation: key, turns: conversation.turns.length });
    return conversation;
  };

  /**
   * Dropped from memory while the store is behind it (what is stored of it
   * is unknown, or turns of it are not stored yet), a conversation would be
   * lost, or read back without those turns.
   */
  const keepWhileBehind = (conversation: Conversation) =>
    held.keepPinned(conversation, sync.behind(conversation) && !conversation.forgotten);

  const sync = makeStoreSync<Conversation>(store, {
    logger,
    redact,
    held: () => held.pinned(),
    readBack: conversation => readBack(conversation.key, conversation.correspondent, conversation.thread),
    onChanged: conversation => {
      conversation.opening = undefined;
      noteIds(conversation);
    },
    onSettled: keepWhileBehind,
  });

  /** A read the daemon refused: not judged, tried again later. */
  const unreadable = (error: unknown): undefined => {
    sync.refused(error);
    return undefined;
  };

  /**
   * The conversation `key` held, or read back from the store (once, however
   * many ask at the same time) and held; undefined when it is neither.
   * Rejects when the daemon refused the read.
   */
  const heldOrStored = async (key: string, correspondent: string, thread: string | undefined) => {
    const known = held.get(key);
    if (known !== undefined || !store.isStored(key)) return known;
    let pending = reading.get(key);
    if (pending === undefined) {
      pending = readBack(key, correspondent, thread).then(conversation => {
        if (conversation !== undefined) adopt(conversation);
        return conversation;
      });
      reading.set(key, pending);
      void pending.finally(() => reading.delete(key)).catch(() => {});
    }
    return pending;
  };

  return harden({
    held,
    sync,
    /**
     * The conversation `key` of `correspondent`, held or read back; its
     * thread is taken from what is stored. Undefined when it is neither,
     * or cannot be read now (the refusal is noted; the next message tries
     * again).
     */
    find: (key: string, correspondent: string) => heldOrStored(key, correspondent, undefined).catch(unreadable),
    /**
     * The conversation of `correspondent` and `thread`: held, read back, or
     * new. When what is stored of it cannot be read now, a new one whose
     * history is unknown: it is answered in, and its stored turns are read
     * (and put first) once the store answers.
     */
    provide: async (correspondent: string, thread: string) => {
      const key = conversationKey(correspondent, thread);
      const listed = await sync.ensureListed();
      const known = listed ? await heldOrStored(key, correspondent, thread).catch(unreadable) : held.get(key);
      if (known !== undefined) {
        // Its stored history could not be read before: this turn tries again.
        if (known.history === 'unknown') await sync.catchUp(known);
        return known;
      }
      const conversation = freshConversation(key, correspondent, thread);
      if (!listed || store.isStored(key)) conversation.history = 'unknown';
      adopt(conversation);
      keepWhileBehind(conversation);
      return conversation;
    },
    /** Forgets the conversation `key`: removed from the store, then from memory; rejects when refused. */
    remove: async (key: string) => {
      await sync.remove(key);
      const conversation = held.get(key);
      if (conversation !== undefined) conversation.forgotten = true;
      held.drop(key);
    },
  });
};
harden(makeConversationMemory);
export type ConversationMemory = ReturnType<typeof makeConversationMemory>;

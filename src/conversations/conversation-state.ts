// What fae holds of one conversation in memory: its summary, its finished
// turns, the ids of messages folded into the summary, and what the store
// has of it (store-sync.ts). A conversation starts fresh, or from the
// records read back from the store.
import type { ChatMessage } from '../../providers/types.js';
import type { ConversationRecord } from './store/records.js';
import { SYNCED_FROM_START, type SyncedConversation } from './store/store-sync.js';

export interface Turn {
  readonly seq: number;
  readonly messageId: string;
  readonly messages: readonly ChatMessage[];
  /** Ids of fae's own messages stored with this turn (records.ts). */
  readonly sent: readonly string[];
}

/**
 * How many ids of messages folded into a conversation's summary it still
 * knows as its own (the latest): a reply to one of them continues the
 * thread (threads.ts).
 */
export const EARLIER_IDS = 256;

/** The message ids a turn holds: the incoming one, and what fae sent. */
export const idsOf = (turn: Turn): readonly string[] =>
  turn.messageId.startsWith('#') ? turn.sent : [turn.messageId].concat(turn.sent);
harden(idsOf);

/**
 * What every request of the next turn opens with (system prompt, summary,
 * the turns so far) and its measure (requests.ts).
 */
export interface Opening {
  readonly messages: readonly ChatMessage[];
  /** The plain token estimate of `messages`. */
  readonly tokens: number;
  /** How many of `messages` are not system messages. */
  readonly count: number;
}

export interface Conversation extends SyncedConversation {
  readonly key: string;
  readonly correspondent: string;
  readonly thread: string;
  summary: string | undefined;
  turns: Turn[];
  /** Ids of messages in turns folded into the summary (EARLIER_IDS). */
  earlier: readonly string[];
  nextSeq: number;
  /**
   * The opening of the next turn's requests, made once per change of the
   * conversation rather than once per request; undefined after one.
   */
  opening: Opening | undefined;
  /**
   * Where the last window of its requests opened, when a window had to be
   * cut (window.ts): the next opens there too while that fits, so that
   * its requests repeat one another.
   */
  windowStart: ChatMessage | undefined;
}

export const freshConversation = (key: string, correspondent: string, thread: string): Conversation => ({
  key,
  correspondent,
  thread,
  summary: undefined,
  turns: [],
  earlier: [],
  nextSeq: 1,
  opening: undefined,
  windowStart: undefined,
  ...SYNCED_FROM_START,
});
harden(freshConversation);

/** The conversation `records` (read back, checked, in sequence order, at least one) hold. */
export const conversationFromRecords = (
  key: string,
  correspondent: string,
  records: readonly ConversationRecord[],
): Conversation => {
  const conversation = freshConversation(key, correspondent, records[0].thread);
  for (const record of records) {
    if (record.kind === 'summary') {
      conversation.summary = record.text;
      conversation.earlier = record.earlier ?? [];
      for (const turn of record.turns) conversation.turns.push({ ...turn, sent: turn.sent ?? [] });
    } else {
      conversation.turns.push({
        seq: record.seq,
        messageId: record.messageId,
        messages: record.messages,
        sent: record.sent ?? [],
      });
    }
  }
  conversation.nextSeq = (records.at(-1)?.seq ?? 0) + 1;
  return conversation;
};
harden(conversationFromRecords);

/** Whether message `id` is one of `conversation`'s finished turns, folded or not. */
export const holdsMessage = (conversation: Conversation, id: string) =>
  conversation.turns.some(turn => turn.messageId === id || turn.sent.includes(id)) ||
  conversation.earlier.includes(id);
harden(holdsMessage);

/** The ids of every message `conversation` holds: those of its turns, and those folded into its summary. */
export const idsOfConversation = (conversation: Conversation): readonly string[] =>
  conversation.turns.flatMap(idsOf).concat(conversation.earlier);
harden(idsOfConversation);

// What status() says of fae's conversations: how many it has, the sizes
// of the latest few it used (so that status() stays small however many
// correspondents there are), and how the store is doing (store-sync.ts).
import type { ChatMessage } from '../../providers/types.js';
import type { Conversation } from './conversation-state.js';
import type { ConversationMemory } from './conversation-memory.js';
import type { ConversationStore } from './store/store.js';
import { estimateMessages } from './requests/tokens.js';

export const conversationsStatus = (
  memory: ConversationMemory,
  store: ConversationStore,
  /** The system messages a request of the conversation opens with (requests.ts). */
  headOf: (conversation: Conversation) => readonly ChatMessage[],
) =>
  harden({
    ...memory.sync.status(),
    // Stored, and new ones not stored yet (their first turn is open).
    conversations: store.count() + memory.held.pinnedKeys().filter(key => !store.isStored(key)).length,
    // The latest used (a few).
    conversationSizes: memory.held.recent().map(c => {
      const messages = c.turns.flatMap(t => t.messages);
      return harden({
        messages: messages.length,
        estimatedTokens: estimateMessages([...headOf(c), ...messages]),
        summarized: c.summary !== undefined,
      });
    }),
  });
harden(conversationsStatus);

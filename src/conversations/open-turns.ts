// A turn per message: opened in the message's conversation once the turn
// before it there has ended (turn-lines.ts), asked for each model request
// (requests.ts), and recorded when it finishes: kept in the conversation
// and stored (store-sync.ts) with the links of fae's own copies that
// answered in it, or dropped when it is abandoned. Turns of different
// conversations are open at the same time.
import type { ChatMessage, ChatOptions, ToolSchema } from '../../providers/types.js';
import type { MessageRecord } from '../daemon/endo-types.js';
import type { Redact } from '../logging/redact.js';
import type { Conversation } from './conversation-state.js';
import type { ConversationMemory } from './conversation-memory.js';
import type { OwnCopyLinks } from './own-copies/own-copy-links.js';
import { holdsMessage } from './conversation-state.js';
import { redactMessage } from './store/records.js';
import type { Requests } from './requests/requests.js';
import { behindInTurns } from './store/store-sync.js';
import type { ThreadFinder } from './thread-finder.js';
import type { TurnLines } from './turn-lines.js';

/** One message being handled: the turn's messages and its requests. */
export interface OpenTurn {
  /** The turn so far, opening with the user message; runTurn appends to it. */
  readonly messages: ChatMessage[];
  /**
   * The request for the next model call (compacting first if needed);
   * `options` reach the summary request (its signal aborts it).
   */
  readonly prepareRequest: (
    messages: readonly ChatMessage[],
    schemas: readonly ToolSchema[],
    options?: ChatOptions,
  ) => Promise<readonly ChatMessage[]>;
  /**
   * Records the finished turn and stores it (one daemon call). `note`, for
   * a turn that ended without an answer, tells the next request what
   * happened, so two user messages never follow each other unexplained.
   * `replied`: a reply answering the message went out, whose own copy is
   * waited for (briefly), so that its link is stored with the turn.
   */
  readonly finish: (note?: string, replied?: boolean) => Promise<void>;
  /** The turn did not finish (cancelled): nothing of it is kept. */
  readonly abandon: () => void;
}

export interface TurnOpeningOptions {
  readonly memory: ConversationMemory;
  readonly lines: TurnLines;
  readonly threads: ThreadFinder;
  readonly links: OwnCopyLinks;
  readonly requests: Requests;
  readonly redact: Redact;
}

/** A message's id; on the February daemon, which gives none, its number. */
const idOf = (message: MessageRecord) =>
  typeof message.messageId === 'string' ? message.messageId : `#${message.number}`;

/**
 * Each message of a turn as it will be stored (redacted), made once. The
 * turn's requests send these very copies, so the next turn's requests,
 * which send the stored turn, repeat them byte for byte (a provider's
 * prompt cache needs that), and no secret a tool returned goes back to
 * the model.
 */
const makeStoredCopies = (redact: Redact) => {
  const storedCopies = new WeakMap<ChatMessage, ChatMessage>();
  return (message: ChatMessage) => {
    let copy = storedCopies.get(message);
    if (copy === undefined) {
      copy = redactMessage(message, redact);
      storedCopies.set(message, copy);
    }
    return copy;
  };
};

/**
 * Records a finished turn in `conversation` at once, and stores it (with
 * the links of its own copies), or keeps it in memory until the store
 * takes it.
 */
const recordTurn = async (
  { memory: { held, sync }, links, requests }: Pick<TurnOpeningOptions, 'memory' | 'links' | 'requests'>,
  kept: readonly ChatMessage[],
  conversation: Conversation,
  messageId: string,
) => {
  const seq = conversation.nextSeq;
  conversation.nextSeq += 1;
  const copies = links.of(conversation.key);
  // A copy read again (after a restart) whose link a turn holds already is let go, not linked twice.
  const sent = harden(copies.filter(copy => !holdsMessage(conversation, copy.messageId)).map(copy => copy.messageId));
  conversation.turns.push({ seq, messageId, messages: kept, sent });
  for (const id of sent) held.noteId(id, conversation.key);
  conversation.unstored += 1;
  requests.extend(conversation, kept);
  await sync.catchUp(conversation);
  if (!behindInTurns(conversation)) await links.release(copies);
};

export const makeTurnOpening = (options: TurnOpeningOptions) => {
  const { memory, lines, threads, links, requests, redact } = options;
  const { held } = memory;
  const asStored = makeStoredCopies(redact);
  /** Records a finished turn, its messages (and `note`) as stored. */
  const record = (conversation: Conversation, messageId: string, messages: readonly ChatMessage[], note: string | undefined) => {
    const all = note === undefined ? messages : [...messages, { role: 'assistant' as const, content: note }];
    return recordTurn(options, harden(all.map(asStored)), conversation, messageId);
  };

  /**
   * Opens the turn for `message` from `correspondent`, with `text` as its
   * user message, once the turn before it in its conversation has ended;
   * undefined when the message was handled before (stored, but the
   * restart came before it was dismissed, or handled while it waited).
   * The caller ends the turn it gets with finish or abandon, once: until
   * then the next message of that conversation waits. With `revision` (the
   * date of an edit of a message answered before), the turn answers that
   * edit: it is a turn of its own, handled once like any message. With
   * `answered` (a message fae's inbox shows answered before a restart),
   * the turn is opened only where the conversation's stored turns could
   * be read: else it may be among them, and is not to be kept twice.
   */
  return async (
    message: MessageRecord,
    correspondent: string,
    text: string,
    { revision, answered = false }: { readonly revision?: string; readonly answered?: boolean } = {},
  ): Promise<OpenTurn | undefined> => {
    const messageId = revision === undefined ? idOf(message) : `${idOf(message)}@${revision}`;
    const place = await lines.place(correspondent, messageId, () => threads.threadFor(message, correspondent));
    await place.ready;
    let conversation: Conversation;
    try {
      conversation = await memory.provide(correspondent, place.thread);
    } catch (error) {
      lines.end(place);
      throw error;
    }
    // Handled before: among its turns, or folded into its summary (or may be, unread).
    const handled = conversation.turns.some(turn => turn.messageId === messageId) || conversation.earlier.includes(messageId);
    if (handled || (answered && conversation.history === 'unknown')) {
      lines.end(place);
      return undefined;
    }
    lines.begin(place);
    held.noteId(messageId, conversation.key);
    // Held while the turn is open, however many others come meanwhile.
    const unpin = held.pin(conversation);
    const messages: ChatMessage[] = [harden({ role: 'user', content: redact(text) })];
    const turn: OpenTurn = {
      messages,
      prepareRequest: (current, schemas, options) =>
        requests.prepare(conversation, current.map(asStored), schemas, options),
      finish: async (note?: string, replied = false) => {
        // Only a message with an id can be replied to by one (February gives none).
        if (replied && typeof message.messageId === 'string') await links.answerCopy(conversation.key, message.messageId);
        // In the conversation at once, so the next turn in line sees it.
        const recorded = place.forgotten() ? undefined : record(conversation, messageId, messages, note);
        lines.end(place);
        try {
          await recorded;
        } finally {
          // Held until stored: a conversation falling out of memory is read back from the store.
          unpin();
        }
      },
      abandon: () => {
        lines.end(place);
        unpin();
      },
    };
    // Frozen, not hardened: runTurn appends to `messages`.
    return Object.freeze(turn);
  };
};
harden(makeTurnOpening);

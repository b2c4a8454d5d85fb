// The conversations fae holds: which one a message opens (threads.ts), read
// back lazily after a restart and written once per finished turn
// (store.ts), kept within the context budget by folding old turns into a
// summary (compaction.ts), and windowed for every request (window.ts).
// fae.ts opens a turn per message; turn.ts asks the turn for each request.
// When the daemon refuses the store, fae answers without storing and
// stores later (store-sync.ts): a conversation whose stored turns could
// not be read is never written over, and turns wait in memory meanwhile.
import type { ChatMessage, Provider, ToolSchema } from '../../providers/types.js';
import type { GuestPowers, MessageRecord, Ref } from '../daemon/endo-types.js';
import type { Logger } from '../logging/log.js';
import type { Redact } from '../logging/redact.js';
import { summarize, turnsToFold } from './compaction.js';
import { redactMessage } from './records.js';
import { makeConversationStore } from './store.js';
import { SYNCED_FROM_START, behindInTurns, makeStoreSync, type SyncedConversation } from './store-sync.js';
import { MAIN_THREAD, conversationKey, correspondentPrefix } from './threads.js';
import { estimateMessages, estimateRequest, estimateSchemas, makeTokenMeter } from './tokens.js';
import { windowRequest } from './window.js';

export interface ConversationLimits {
  /** FAE_CONTEXT_TOKENS: what one request may carry. */
  readonly contextTokens: number;
  /** LAL_MAX_MESSAGES: exact ceiling on non-system messages per request. */
  readonly maxMessages: number | undefined;
  /** FAE_MAX_TRANSCRIPT: verbatim messages one conversation keeps. */
  readonly maxTranscript: number;
}

export interface ConversationsOptions {
  readonly provider: Provider;
  readonly limits: ConversationLimits;
  readonly systemPrompt: string;
  readonly redact: Redact;
  readonly logger: Logger;
  /** Told of the tokens a summary cost. */
  readonly onUsage?: (inputTokens: number, outputTokens: number) => void;
  /**
   * Dismisses fae's own copies (by number) once nothing needs them any
   * more: what they teach is stored, or their conversation is forgotten.
   */
  readonly dismissOwnCopies?: (numbers: readonly bigint[]) => Promise<void>;
}

interface Turn {
  readonly seq: number;
  readonly messageId: string;
  readonly messages: readonly ChatMessage[];
  /** Ids of fae's own messages stored with this turn (records.ts). */
  readonly sent: readonly string[];
}

/** A copy of a message fae sent, kept until its link is stored. */
interface OwnCopy {
  readonly number: bigint;
  readonly messageId: string;
  readonly replyTo: string;
  /**
   * The conversation that held `replyTo` when the copy came: found then,
   * since the copy may come many turns late (a burst of mail keeps fae's
   * reader behind its turns), by when that turn may be folded away.
   */
  readonly key: string | undefined;
}

/** Own copies waiting for their conversation's next record, at most. */
const OWN_COPIES_LIMIT = 4096;

/**
 * How many ids of messages folded into a conversation's summary it still
 * knows as its own (the latest): a reply to one of them continues the
 * thread (threads.ts).
 */
const EARLIER_IDS = 256;

/** The message ids a turn holds: the incoming one, and what fae sent. */
const idsOf = (turn: Turn) => (turn.messageId.startsWith('#') ? turn.sent : [turn.messageId, ...turn.sent]);

interface Conversation extends SyncedConversation {
  readonly key: string;
  readonly correspondent: string;
  readonly thread: string;
  summary: string | undefined;
  turns: Turn[];
  /** Ids of messages in turns folded into the summary (EARLIER_IDS). */
  earlier: readonly string[];
  nextSeq: number;
  /**
   * What every request of the next turn opens with (system prompt,
   * summary, the turns so far) and its measure, made once per change of
   * the conversation rather than once per request; undefined after one.
   */
  opening: Opening | undefined;
}

interface Opening {
  readonly messages: readonly ChatMessage[];
  /** The plain token estimate of `messages`. */
  readonly tokens: number;
  /** How many of `messages` are not system messages. */
  readonly count: number;
}

/** One message being handled: the turn's messages and its requests. */
export interface OpenTurn {
  /** The turn so far, opening with the user message; runTurn appends to it. */
  readonly messages: ChatMessage[];
  /** The request for the next model call (compacting first if needed). */
  readonly prepareRequest: (
    messages: readonly ChatMessage[],
    schemas: readonly ToolSchema[],
  ) => Promise<readonly ChatMessage[]>;
  /**
   * Records the finished turn and stores it (one daemon call). `note`, for
   * a turn that ended without an answer, tells the next request what
   * happened, so two user messages never follow each other unexplained.
   */
  readonly finish: (note?: string) => Promise<void>;
  /** The turn did not finish (cancelled): nothing of it is kept. */
  readonly abandon: () => void;
}

/**
 * A list of messages that are each hardened already, made immutable.
 * Frozen rather than hardened: harden would walk every message again on
 * every request (about 1 ms for 2,000 messages); the list's elements and
 * Array.prototype are frozen (lockdown), so nothing in it can change.
 */
const frozenList = (messages: ChatMessage[]): readonly ChatMessage[] => Object.freeze(messages);

/** A message's id; on the February daemon, which gives none, its number. */
const idOf = (message: MessageRecord) =>
  typeof message.messageId === 'string' ? message.messageId : `#${message.number}`;

export const makeConversations = (
  powers: Ref<GuestPowers>,
  { provider, limits, systemPrompt, redact, logger, onUsage, dismissOwnCopies = async () => {} }: ConversationsOptions,
) => {
  const store = makeConversationStore(powers, logger);
  const meter = makeTokenMeter();
  const held = new Map<string, Conversation>();
  /** Stored but not read back yet in this incarnation. */
  const unread = new Set<string>();
  /**
   * fae's own copies whose link to a thread is not stored yet, by number.
   * After a restart they come back with the replay, and wait here until
   * their conversation has been read back and writes its next record.
   */
  const ownCopies = new Map<bigint, OwnCopy>();
  const systemMessage: ChatMessage = harden({ role: 'system', content: systemPrompt });
  let openTurn: { conversation: Conversation; messageId: string; forgotten: boolean } | undefined;

  const headOf = (conversation: Conversation): ChatMessage[] =>
    conversation.summary === undefined
      ? [systemMessage]
      : [
          systemMessage,
          harden({
            role: 'system',
            content: `Summary of your earlier conversation with this correspondent:\n${conversation.summary}`,
          }),
        ];

  const fresh = (key: string, correspondent: string, thread: string): Conversation => ({
    key,
    correspondent,
    thread,
    summary: undefined,
    turns: [],
    earlier: [],
    nextSeq: 1,
    opening: undefined,
    ...SYNCED_FROM_START,
  });

  const adopt = (conversation: Conversation) => {
    held.set(conversation.key, conversation);
    unread.delete(conversation.key);
  };

  /** Whether message `id` is one of `conversation`'s, folded or not. */
  const holds = (conversation: Conversation, id: string) =>
    (openTurn?.conversation === conversation && openTurn.messageId === id) ||
    conversation.turns.some(turn => turn.messageId === id || turn.sent.includes(id)) ||
    conversation.earlier.includes(id);

  /**
   * The held conversation (of `correspondent`, when given) that message
   * `messageId` belongs to. fae's own messages whose ids are not stored
   * yet lead back to what they answered (a short chain).
   */
  const conversationOf = (messageId: string, correspondent?: string) => {
    let id: string | undefined = messageId;
    for (let step = 0; id !== undefined && step < 8; step += 1) {
      for (const conversation of held.values()) {
        if ((correspondent === undefined || conversation.correspondent === correspondent) && holds(conversation, id)) {
          return conversation;
        }
      }
      const copy: OwnCopy | undefined = [...ownCopies.values()].find(own => own.messageId === id);
      id = copy?.replyTo;
    }
    return undefined;
  };

  /**
   * The conversation stored under `key`, or undefined when nothing usable
   * is stored (unusable data is logged; a fresh start replaces it).
   * Rejects when the daemon refused the read: nothing is judged.
   */
  const readBack = async (key: string, correspondent: string, thread: string | undefined) => {
    const records = await store.load(key, correspondent, thread);
    if (records === undefined || records.length === 0) return undefined;
    const conversation = fresh(key, correspondent, records[0].thread);
    for (const record of records) {
      if (record.kind === 'summary') {
        conversation.summary = record.text;
        conversation.earlier = record.earlier ?? [];
        conversation.turns.push(...record.turns.map(turn => ({ ...turn, sent: turn.sent ?? [] })));
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
    logger.event('conversation-restored', { conversation: key, turns: conversation.turns.length });
    return conversation;
  };

  const sync = makeStoreSync<Conversation>(store, {
    logger,
    redact,
    held: () => held.values(),
    onListed: keys => {
      for (const key of keys) if (!held.has(key)) unread.add(key);
    },
    readBack: conversation => readBack(conversation.key, conversation.correspondent, conversation.thread),
    onChanged: conversation => {
      conversation.opening = undefined;
    },
  });

  const provide = async (correspondent: string, thread: string) => {
    const key = conversationKey(correspondent, thread);
    const known = held.get(key);
    // Its stored history could not be read before: this turn tries again.
    if (known?.history === 'unknown' && sync.listed()) await sync.catchUp(known);
    if (known !== undefined) return known;
    const conversation = fresh(key, correspondent, thread);
    // What is stored of it is read before anything of it is written.
    if (!sync.listed() || unread.has(key)) conversation.history = 'unknown';
    adopt(conversation);
    if (conversation.history === 'unknown' && sync.listed()) await sync.catchUp(conversation);
    return conversation;
  };

  /** Reads every stored thread of a correspondent not read yet. */
  const readAllOf = async (correspondent: string) => {
    const prefix = correspondentPrefix(correspondent);
    const keys = [...unread].filter(key => key.startsWith(prefix));
    const found = await Promise.all(
      keys.map(key =>
        readBack(key, correspondent, undefined).catch(error => {
          // Stays unread: its next message tries again.
          sync.refused(error);
          return undefined;
        }),
      ),
    );
    for (const conversation of found) if (conversation !== undefined) adopt(conversation);
  };

  /** See threads.ts for the rules. */
  const threadFor = async (message: MessageRecord, correspondent: string) => {
    const { replyTo } = message;
    if (typeof replyTo !== 'string' || replyTo === '') return MAIN_THREAD;
    const lookup = () => conversationOf(replyTo, correspondent)?.thread;
    const known = lookup();
    if (known !== undefined) return known;
    await readAllOf(correspondent);
    return lookup() ?? replyTo;
  };

  /** The own copies that belong to `conversation`, now that it writes. */
  const ownCopiesOf = (conversation: Conversation) =>
    [...ownCopies.values()].filter(copy => (copy.key ?? conversationOf(copy.replyTo)?.key) === conversation.key);

  /** Their links are stored (or their conversation gone): they may go. */
  const release = async (copies: readonly OwnCopy[]) => {
    if (copies.length === 0) return;
    for (const copy of copies) ownCopies.delete(copy.number);
    await dismissOwnCopies(harden(copies.map(copy => copy.number)));
  };

  /**
   * Folds the oldest turns into the summary until the request would take
   * half the budget (so compaction is rare), in batches that each fit the
   * budget themselves. A failed summary leaves the turns as they are: the
   * window then keeps the request within bounds. The summary is stored as
   * one new generation once every batch is folded; not while what is
   * stored of the conversation is unknown (it would replace that).
   */
  const compact = async (conversation: Conversation, current: readonly ChatMessage[], schemas: readonly ToolSchema[]) => {
    if (conversation.history === 'unknown' || conversation.forgotten) return;
    await sync.amend(conversation, () => foldOldTurns(conversation, current, schemas));
  };

  const foldOldTurns = async (
    conversation: Conversation,
    current: readonly ChatMessage[],
    schemas: readonly ToolSchema[],
  ) => {
    const budget = limits.contextTokens;
    const summaryTokens = Math.max(64, Math.floor(budget / 8));
    const fixed = estimateMessages([systemMessage, ...current]) + estimateSchemas(schemas) + summaryTokens;
    let count = turnsToFold(conversation.turns.map(t => t.messages), fixed, Math.floor(budget / 2));
    // FAE_MAX_TRANSCRIPT: past it, fold down to half of it as well.
    const total = conversation.turns.reduce((n, t) => n + t.messages.length, current.length);
    if (total > limits.maxTranscript) {
      let dropped = conversation.turns.slice(0, count).reduce((n, t) => n + t.messages.length, 0);
      while (count < conversation.turns.length && total - dropped > Math.floor(limits.maxTranscript / 2)) {
        dropped += conversation.turns[count].messages.length;
        count += 1;
      }
    }
    while (count > 0) {
      // Batch: the oldest turns whose text, with the summary so far, fits.
      let batch = 0;
      let size = 400 + summaryTokens;
      while (batch < count && (batch === 0 || size + estimateMessages(conversation.turns[batch].messages) <= budget)) {
        size += estimateMessages(conversation.turns[batch].messages);
        batch += 1;
      }
      const folded = conversation.turns.slice(0, batch);
      let summary;
      try {
        // Sequential on purpose: each batch builds on the previous summary.
        // eslint-disable-next-line no-await-in-loop
        summary = await summarize(provider, conversation.summary, folded.map(t => t.messages), summaryTokens);
      } catch (error) {
        logger.warn('conversation-compaction-failed', {
          conversation: conversation.key,
          error: redact(error instanceof Error ? error.message : String(error)),
        });
        return;
      }
      const inputTokens = summary.usage?.inputTokens ?? 0;
      const outputTokens = summary.usage?.outputTokens ?? 0;
      onUsage?.(inputTokens, outputTokens);
      logger.event('conversation-compacted', {
        conversation: conversation.key,
        turns: batch,
        inputTokens,
        outputTokens,
      });
      conversation.summary = redact(summary.text);
      conversation.earlier = harden([...conversation.earlier, ...folded.flatMap(idsOf)].slice(-EARLIER_IDS));
      conversation.turns = conversation.turns.slice(batch);
      conversation.opening = undefined;
      // Stored with the summary, as a new generation (store-sync.ts).
      conversation.summaryUnstored = true;
      conversation.unstored = 0;
      count -= batch;
    }
  };

  const openingOf = (conversation: Conversation): Opening => {
    if (conversation.opening === undefined) {
      const turnMessages = conversation.turns.flatMap(t => t.messages);
      const messages = frozenList([...headOf(conversation), ...turnMessages]);
      // Frozen, as its list: hardening it would walk the list after all.
      conversation.opening = Object.freeze({ messages, tokens: estimateMessages(messages), count: turnMessages.length });
    }
    return conversation.opening;
  };

  const requestFor = async (
    conversation: Conversation,
    current: readonly ChatMessage[],
    schemas: readonly ToolSchema[],
  ) => {
    const measure = () => {
      const opening = openingOf(conversation);
      return {
        opening,
        tokens: opening.tokens + estimateMessages(current) + estimateSchemas(schemas),
        count: opening.count + current.length,
      };
    };
    let whole = measure();
    if (
      conversation.turns.length > 0 &&
      (meter.scale(whole.tokens) > limits.contextTokens || whole.count > limits.maxTranscript)
    ) {
      await compact(conversation, current, schemas);
      whole = measure();
    }
    const all = frozenList([...whole.opening.messages, ...current]);
    // The whole conversation fits as it is (the common case): no window to cut.
    if (
      (limits.maxMessages === undefined || whole.count <= limits.maxMessages) &&
      meter.scale(whole.tokens) <= limits.contextTokens
    ) {
      lastEstimate = whole.tokens;
      return all;
    }
    const request = windowRequest(all, schemas, limits, meter);
    lastEstimate = estimateRequest(request, schemas);
    return request;
  };
  let lastEstimate = 0;

  /**
   * Opens the turn for `message` from `correspondent`, with `text` as its
   * user message; undefined when the message was handled before (stored,
   * but the restart came before it was dismissed).
   */
  const open = async (message: MessageRecord, correspondent: string, text: string) => {
    // A store that could not be listed is tried again on every message.
    if (!sync.listed()) await sync.ensureListed();
    const conversation = await provide(correspondent, await threadFor(message, correspondent));
    const messageId = idOf(message);
    if (conversation.turns.some(turn => turn.messageId === messageId)) return undefined;
    const state = { conversation, messageId, forgotten: false };
    openTurn = state;
    const messages: ChatMessage[] = [harden({ role: 'user', content: redact(text) })];
    const turn: OpenTurn = {
      messages,
      prepareRequest: (current, schemas) => requestFor(conversation, current, schemas),
      finish: async (note?: string) => {
        if (openTurn === state) openTurn = undefined;
        if (state.forgotten) return;
        const all = note === undefined ? messages : [...messages, { role: 'assistant' as const, content: note }];
        const kept = harden(all.map(m => redactMessage(m, redact)));
        const seq = conversation.nextSeq;
        conversation.nextSeq += 1;
        const copies = ownCopiesOf(conversation);
        const sent = harden(copies.map(copy => copy.messageId));
        conversation.turns.push({ seq, messageId, messages: kept, sent });
        conversation.unstored += 1;
        conversation.opening = undefined;
        // Stored now, or kept in memory until the store takes it.
        await sync.catchUp(conversation);
        if (!behindInTurns(conversation)) await release(copies);
      },
      abandon: () => {
        if (openTurn === state) openTurn = undefined;
      },
    };
    // Frozen, not hardened: runTurn appends to `messages`.
    return Object.freeze(turn);
  };

  /**
   * Forgets every thread of `correspondent`, stored or held; how many.
   * Rejects, saying so, when the daemon refused: a thread it could not
   * remove is kept whole (stored and held), none is left with holes.
   */
  const forget = async (correspondent: string) => {
    if (!(await sync.ensureListed())) {
      throw Error(
        `could not forget the conversation: the conversation store cannot be listed (${sync.status().storageError}). Nothing was forgotten; try again later`,
      );
    }
    const prefix = correspondentPrefix(correspondent);
    const keys = new Set([...unread].filter(key => key.startsWith(prefix)));
    const mine = [...held.values()].filter(conversation => conversation.correspondent === correspondent);
    for (const conversation of mine) keys.add(conversation.key);
    // Their own copies, found while the threads are still there.
    const copies = new Map(mine.map(conversation => [conversation, ownCopiesOf(conversation)]));
    const failures: unknown[] = [];
    await Promise.all(
      [...keys].map(async key => {
        try {
          await sync.remove(key);
        } catch (error) {
          failures.push(error);
          return;
        }
        const conversation = held.get(key);
        if (conversation !== undefined) conversation.forgotten = true;
        held.delete(key);
        unread.delete(key);
        if (openTurn?.conversation.key === key) openTurn.forgotten = true;
      }),
    );
    // The copies of what is forgotten teach nothing any more.
    await release(mine.filter(conversation => conversation.forgotten).flatMap(conversation => copies.get(conversation) ?? []));
    const forgotten = keys.size - failures.length;
    logger.event('conversation-forgotten', { conversations: forgotten });
    sync.checkRecovered();
    if (failures.length > 0) {
      const reason = redact(failures[0] instanceof Error ? failures[0].message : String(failures[0]));
      logger.warn('conversation-not-forgotten', { conversations: failures.length, error: reason });
      const kept =
        forgotten === 0 ? 'Nothing was forgotten' : `${forgotten} of ${keys.size} threads were forgotten; the others are kept whole`;
      throw Error(`could not forget the conversation: ${reason}. ${kept}; try again later`);
    }
    return forgotten;
  };

  return harden({
    /**
     * Reads which conversations are stored (creating the directory when
     * the daemon says there is none). A refusal is logged and retried in
     * the background; fae answers meanwhile without storing.
     */
    start: async () => {
      await sync.ensureListed();
    },
    /** Ends the background retry (fae is cancelled). */
    stop: () => sync.stop(),
    open,
    forget,
    /**
     * fae's own copy of a message it sent: links threads (threads.ts).
     * Resolves once a copy that teaches nothing (no reply) is dismissed;
     * one that does waits for its conversation's next record.
     */
    noteOwnMessage: async (message: MessageRecord) => {
      const { messageId, replyTo, number } = message;
      if (typeof messageId !== 'string' || messageId === '' || typeof replyTo !== 'string' || replyTo === '') {
        await dismissOwnCopies(harden([number]));
        return;
      }
      const key = conversationOf(replyTo)?.key;
      if (key === undefined && sync.listed() && unread.size === 0) {
        // Its thread is gone (forgotten, or folded past EARLIER_IDS), and
        // no stored one is left to read: no reply to it can be placed.
        logger.event('own-copy-unplaced', { message: number });
        await dismissOwnCopies(harden([number]));
        return;
      }
      ownCopies.set(number, harden({ number, messageId, replyTo, key }));
      // Past the bound the oldest stays in the inbox: kept, not lost.
      if (ownCopies.size > OWN_COPIES_LIMIT) ownCopies.delete(ownCopies.keys().next().value as bigint);
    },
    /** The provider, learning how the estimate compares with reported usage. */
    meter: (inner: Provider): Provider =>
      harden({
        kind: inner.kind,
        model: inner.model,
        chat: async (messages: readonly ChatMessage[], schemas: readonly ToolSchema[]) => {
          const estimate = lastEstimate;
          const result = await inner.chat(messages, schemas);
          meter.observe(estimate, result.usage?.inputTokens);
          return result;
        },
      }),
    status: () =>
      harden({
        ...sync.status(),
        conversations: held.size + unread.size,
        conversationSizes: [...held.values()].map(c => {
          const messages = c.turns.flatMap(t => t.messages);
          return harden({
            messages: messages.length,
            estimatedTokens: estimateMessages([...headOf(c), ...messages]),
            summarized: c.summary !== undefined,
          });
        }),
      }),
  });
};
harden(makeConversations);
export type Conversations = ReturnType<typeof makeConversations>;

// The conversations fae holds: which one a message opens (threads.ts), read
// back lazily after a restart and written once per finished turn
// (store.ts), kept within the context budget by folding old turns into a
// summary (compaction.ts), and windowed for every request (window.ts).
// fae.ts opens a turn per message; turn.ts asks the turn for each request.
// When the daemon refuses the store, fae answers without storing and
// stores later (store-sync.ts): a conversation whose stored turns could
// not be read is never written over, and it is held, with the turns
// answered meanwhile, until the store has them.
import type { ChatMessage, ChatOptions, Provider, ToolSchema } from '../../providers/types.js';
import type { GuestPowers, MessageRecord, Ref } from '../daemon/endo-types.js';
import type { Logger } from '../logging/log.js';
import type { Redact } from '../logging/redact.js';
import { summarize, turnsToFold } from './compaction.js';
import { redactMessage } from './records.js';
import { makeConversationStore } from './store.js';
import { SYNCED_FROM_START, behindInTurns, makeStoreSync, type SyncedConversation } from './store-sync.js';
import { makeHeldConversations } from './held.js';
import { makeOwnCopies, ownCopyLink, type OwnCopy } from './own-copies.js';
import { MAIN_THREAD, conversationKey } from './threads.js';
import { estimateMessages, estimateRequest, estimateSchemas, makeTokenMeter } from './tokens.js';
import { windowRequest } from './window.js';

export interface ConversationLimits {
  /** FAE_CONTEXT_TOKENS: what one request may carry. */
  readonly contextTokens: number;
  /** LAL_MAX_MESSAGES: exact ceiling on non-system messages per request. */
  readonly maxMessages: number | undefined;
  /** FAE_MAX_TRANSCRIPT: verbatim messages one conversation keeps. */
  readonly maxTranscript: number;
  /** FAE_HELD_CONVERSATIONS: conversations kept in memory besides those in use. */
  readonly heldConversations?: number;
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
  // Bounded: a conversation not held is read back from the store.
  const held = makeHeldConversations<Conversation>(limits.heldConversations);
  /** Stored conversations being read back, so that one is read once at a time. */
  const reading = new Map<string, Promise<Conversation | undefined>>();
  /**
   * fae's own copies whose link to a thread is not stored yet. After a
   * restart they come back with the replay, and wait there until their
   * conversation has been read back and writes its next record.
   */
  const ownCopies = makeOwnCopies();
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

  /** Notes which message ids are `conversation`'s. */
  const noteIds = (conversation: Conversation) => {
    for (const turn of conversation.turns) for (const id of idsOf(turn)) held.noteId(id, conversation.key);
    for (const id of conversation.earlier) held.noteId(id, conversation.key);
  };

  /** Holds `conversation` and notes which message ids are its. */
  const adopt = (conversation: Conversation) => {
    held.put(conversation);
    noteIds(conversation);
  };

  /** Whether message `id` is one of `conversation`'s, folded or not. */
  const holds = (conversation: Conversation, id: string) =>
    (openTurn?.conversation === conversation && openTurn.messageId === id) ||
    conversation.turns.some(turn => turn.messageId === id || turn.sent.includes(id)) ||
    conversation.earlier.includes(id);

  /**
   * The held conversation (of `correspondent`, when given) that message
   * `messageId` belongs to, as far as the index of recent ids knows. fae's
   * own messages whose ids are not stored yet lead back to what they
   * answered.
   */
  const knownConversationOf = (messageId: string, correspondent?: string) => {
    const id = ownCopies.origin(messageId);
    const key = held.keyOfId(id);
    const conversation = key === undefined ? undefined : held.get(key);
    if (conversation === undefined || !holds(conversation, id)) return undefined;
    return correspondent === undefined || conversation.correspondent === correspondent ? conversation : undefined;
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

  /**
   * Pins of the conversations the store is behind (what is stored of them
   * is unknown, or turns of them are not stored yet): dropped from memory
   * they would be lost, or read back without those turns.
   */
  const behindPins = new Map<string, () => void>();
  const keepWhileBehind = (conversation: Conversation) => {
    const pin = behindPins.get(conversation.key);
    if (sync.behind(conversation) && !conversation.forgotten) {
      if (pin === undefined) behindPins.set(conversation.key, held.pin(conversation));
    } else if (pin !== undefined) {
      behindPins.delete(conversation.key);
      pin();
    }
  };

  /** A read the daemon refused: not judged, tried again later. */
  const unreadable = (error: unknown): undefined => {
    sync.refused(error);
    return undefined;
  };

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

  /**
   * The conversation `key`: held, read back, or new. When what is stored of
   * it cannot be read now, a new one whose history is unknown: it is
   * answered in, and its stored turns are read (and put first) once the
   * store answers.
   */
  const provide = async (correspondent: string, thread: string) => {
    const key = conversationKey(correspondent, thread);
    const listed = await sync.ensureListed();
    const known = listed ? await heldOrStored(key, correspondent, thread).catch(unreadable) : held.get(key);
    if (known !== undefined) {
      // Its stored history could not be read before: this turn tries again.
      if (known.history === 'unknown') await sync.catchUp(known);
      return known;
    }
    const conversation = fresh(key, correspondent, thread);
    if (!listed || store.isStored(key)) conversation.history = 'unknown';
    adopt(conversation);
    keepWhileBehind(conversation);
    return conversation;
  };

  /**
   * The conversation of `correspondent` that message `messageId` belongs
   * to: from the index of recent ids, else from that correspondent's own
   * threads (held, or read back), never from anyone else's.
   */
  const conversationOf = async (messageId: string, correspondent: string) => {
    const known = knownConversationOf(messageId, correspondent);
    if (known !== undefined) return known;
    const id = ownCopies.origin(messageId);
    const keys = new Set([...store.keysOf(correspondent), ...held.pinnedKeysOf(correspondent)]);
    // One that cannot be read now is not searched; its next message tries again.
    const threads = await Promise.all(
      [...keys].map(key => heldOrStored(key, correspondent, undefined).catch(unreadable)),
    );
    return threads.find(conversation => conversation !== undefined && holds(conversation, id));
  };

  /** See threads.ts for the rules. */
  const threadFor = async (message: MessageRecord, correspondent: string) => {
    const { replyTo } = message;
    if (typeof replyTo !== 'string' || replyTo === '') return MAIN_THREAD;
    return (await conversationOf(replyTo, correspondent))?.thread ?? replyTo;
  };

  /** The own copies that belong to `conversation`, now that it writes. */
  const ownCopiesOf = (conversation: Conversation) => ownCopies.of(conversation.key);

  /** Their links are stored (or their conversation gone): they may go. */
  const release = async (copies: readonly OwnCopy[]) => {
    if (copies.length === 0) return;
    ownCopies.release(copies);
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
  const compact = async (
    conversation: Conversation,
    current: readonly ChatMessage[],
    schemas: readonly ToolSchema[],
    options: ChatOptions,
  ) => {
    if (conversation.history === 'unknown' || conversation.forgotten) return;
    await sync.amend(conversation, () => foldOldTurns(conversation, current, schemas, options));
  };

  const foldOldTurns = async (
    conversation: Conversation,
    current: readonly ChatMessage[],
    schemas: readonly ToolSchema[],
    options: ChatOptions,
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
        summary = await summarize(provider, conversation.summary, folded.map(t => t.messages), summaryTokens, options);
      } catch (error) {
        // Aborted with its turn: no failure, and the turn asks nothing more.
        options.signal?.throwIfAborted();
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
    options: ChatOptions = {},
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
      await compact(conversation, current, schemas, options);
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
   * Records a finished turn in `conversation` and stores it (with the links
   * of its own copies), or keeps it in memory until the store takes it.
   */
  const record = async (
    conversation: Conversation,
    messageId: string,
    messages: readonly ChatMessage[],
    note: string | undefined,
  ) => {
    const all = note === undefined ? messages : [...messages, { role: 'assistant' as const, content: note }];
    const kept = harden(all.map(m => redactMessage(m, redact)));
    const seq = conversation.nextSeq;
    conversation.nextSeq += 1;
    const copies = ownCopiesOf(conversation);
    const sent = harden(copies.map(copy => copy.messageId));
    conversation.turns.push({ seq, messageId, messages: kept, sent });
    for (const id of sent) held.noteId(id, conversation.key);
    conversation.unstored += 1;
    conversation.opening = undefined;
    await sync.catchUp(conversation);
    if (!behindInTurns(conversation)) await release(copies);
  };

  /**
   * Opens the turn for `message` from `correspondent`, with `text` as its
   * user message; undefined when the message was handled before (stored,
   * but the restart came before it was dismissed).
   */
  const open = async (message: MessageRecord, correspondent: string, text: string) => {
    const conversation = await provide(correspondent, await threadFor(message, correspondent));
    const messageId = idOf(message);
    if (conversation.turns.some(turn => turn.messageId === messageId)) return undefined;
    const state = { conversation, messageId, forgotten: false };
    openTurn = state;
    held.noteId(messageId, conversation.key);
    // Held while the turn is open, however many others come meanwhile.
    const unpin = held.pin(conversation);
    const messages: ChatMessage[] = [harden({ role: 'user', content: redact(text) })];
    const turn: OpenTurn = {
      messages,
      prepareRequest: (current, schemas, options) => requestFor(conversation, current, schemas, options),
      finish: async (note?: string) => {
        if (openTurn === state) openTurn = undefined;
        try {
          if (!state.forgotten) await record(conversation, messageId, messages, note);
        } finally {
          // Held until stored: a conversation falling out of memory is read back from the store.
          unpin();
        }
      },
      abandon: () => {
        if (openTurn === state) openTurn = undefined;
        unpin();
      },
    };
    // Frozen, not hardened: runTurn appends to `messages`.
    return Object.freeze(turn);
  };

  /** Forgets the thread `key`: removed from the store, then from memory; rejects when refused. */
  const forgetThread = async (key: string) => {
    await sync.remove(key);
    const conversation = held.get(key);
    if (conversation !== undefined) conversation.forgotten = true;
    behindPins.get(key)?.();
    behindPins.delete(key);
    held.drop(key);
    if (openTurn?.conversation.key === key) openTurn.forgotten = true;
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
    const keys = new Set([...store.keysOf(correspondent), ...held.pinnedKeysOf(correspondent)]);
    if (openTurn?.conversation.correspondent === correspondent) keys.add(openTurn.conversation.key);
    const outcomes = await Promise.allSettled(
      [...keys].map(async key => {
        // Its own copies, found while the thread is still there.
        const copies = ownCopies.of(key);
        await forgetThread(key);
        return copies;
      }),
    );
    const failures = outcomes.flatMap(outcome => (outcome.status === 'rejected' ? [outcome.reason] : []));
    // The copies of what is forgotten teach nothing any more.
    await release(outcomes.flatMap(outcome => (outcome.status === 'fulfilled' ? outcome.value : [])));
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
    noteOwnMessage: async (message: MessageRecord, correspondent: string) => {
      const { number } = message;
      const link = ownCopyLink(message);
      if (link === undefined) {
        await dismissOwnCopies(harden([number]));
        return;
      }
      const key = (await conversationOf(link.replyTo, correspondent))?.key;
      if (key === undefined && (!sync.listed() || sync.status().storage !== 'ok')) {
        // Its thread may be in a stored conversation that cannot be read
        // now: the copy stays in the inbox, kept, and a restart relearns it.
        return;
      }
      if (key === undefined) {
        // Its thread is gone (forgotten, or folded past EARLIER_IDS): no
        // reply to it can be placed.
        logger.event('own-copy-unplaced', { message: number });
        await dismissOwnCopies(harden([number]));
        return;
      }
      // Past the bound the oldest stays in the inbox: kept, not lost.
      ownCopies.add(harden({ number, ...link, key }));
    },
    /** The provider, learning how the estimate compares with reported usage. */
    meter: (inner: Provider): Provider =>
      harden({
        kind: inner.kind,
        model: inner.model,
        chat: async (messages: readonly ChatMessage[], schemas: readonly ToolSchema[], options?: ChatOptions) => {
          const estimate = lastEstimate;
          const result = await inner.chat(messages, schemas, options);
          meter.observe(estimate, result.usage?.inputTokens);
          return result;
        },
      }),
    status: () =>
      harden({
        ...sync.status(),
        // Stored, and new ones not stored yet (their first turn is open).
        conversations: store.count() + held.pinnedKeys().filter(key => !store.isStored(key)).length,
        // The latest used (a few): status() stays small however many there are.
        conversationSizes: held.recent().map(c => {
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

// Folding the oldest turns of a conversation into a summary the model
// writes (one extra model call). The summary replaces those turns at the
// head of the conversation; the most recent turns stay verbatim. A turn is
// folded whole, so a tool call is never separated from its result.
// makeCompaction decides how many turns to fold and in which batches, and
// keeps the conversation's books (the ids folded, what is left to store).
import type { ChatMessage, ChatOptions, Provider, ToolSchema, Usage } from '../../../providers/types.js';
import type { Logger } from '../../logging/log.js';
import type { Redact } from '../../logging/redact.js';
import { EARLIER_IDS, idsOf, type Conversation, type Turn } from '../conversation-state.js';
import { estimateMessages, estimateSchemas } from './tokens.js';

const SUMMARY_INSTRUCTIONS = `You keep the memory of a conversation between Fae, an assistant, and one correspondent. You are given the summary so far (if any) and the exchanges that follow it. Write a new summary that replaces both, so that Fae can continue the conversation from it alone: keep facts, names, numbers, decisions, what was asked and answered, what Fae did with its tools and what is still open; leave out pleasantries and anything repeated. Write in the third person ("The correspondent asked…", "Fae answered…"), plain text, no preamble.`;

/** Longest text of one message shown to the summariser. */
const MAX_RENDERED_MESSAGE = 4_000;

const clip = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max)} … (${text.length - max} more characters)` : text;

/** A turn as plain text for the summariser. */
export const renderTurn = (messages: readonly ChatMessage[]): string =>
  messages
    .map(message => {
      switch (message.role) {
        case 'user':
          return `Correspondent: ${clip(message.content, MAX_RENDERED_MESSAGE)}`;
        case 'tool':
          return `Tool ${message.name ?? ''} returned: ${clip(message.content, MAX_RENDERED_MESSAGE)}`;
        default: {
          const calls = (message.tool_calls ?? []).map(
            call => `Fae called ${call.function.name}(${clip(call.function.arguments, 1_000)})`,
          );
          const said = message.content === '' ? [] : [`Fae: ${clip(message.content, MAX_RENDERED_MESSAGE)}`];
          return [...said, ...calls].join('\n');
        }
      }
    })
    .filter(line => line !== '')
    .join('\n');
harden(renderTurn);

/**
 * How many of the oldest turns to fold so that the rest, with the fixed
 * part of the request, comes down to `target` tokens. Never folds the last
 * `keep` turns.
 */
export const turnsToFold = (
  turns: readonly (readonly ChatMessage[])[],
  fixedTokens: number,
  target: number,
  keep = 0,
): number => {
  let total = fixedTokens + turns.reduce((sum, turn) => sum + estimateMessages(turn), 0);
  let count = 0;
  while (count < turns.length - keep && total > target) {
    total -= estimateMessages(turns[count]);
    count += 1;
  }
  return count;
};
harden(turnsToFold);

export interface Summary {
  readonly text: string;
  readonly usage: Usage | undefined;
}

/**
 * Asks the model for the summary of `previous` followed by `turns`, in at
 * most about `maxTokens` tokens (longer answers are cut there). `options`
 * go to the provider as they are (its signal aborts the request).
 */
export const summarize = async (
  provider: Provider,
  previous: string | undefined,
  turns: readonly (readonly ChatMessage[])[],
  maxTokens: number,
  options: ChatOptions = {},
): Promise<Summary> => {
  const maxChars = maxTokens * 4;
  const words = Math.max(50, Math.floor(maxTokens * 0.6));
  const parts = [
    previous === undefined ? 'There is no summary yet.' : `The summary so far:\n${previous}`,
    `The exchanges that follow it:\n${turns.map(renderTurn).join('\n\n')}`,
    `Write the new summary in at most ${words} words.`,
  ];
  const result = await provider.chat(
    harden([
      { role: 'system', content: SUMMARY_INSTRUCTIONS },
      { role: 'user', content: parts.join('\n\n') },
    ]),
    harden([]),
    options,
  );
  const text = (result.message.content ?? '').replace(/<think>[\s\S]*?<\/think>/g, '').trim();
  if (text === '') throw Error('the model wrote an empty summary');
  return harden({ text: clip(text, maxChars), usage: result.usage });
};
harden(summarize);

export interface CompactionOptions {
  readonly provider: Provider;
  readonly limits: { readonly contextTokens: number; readonly maxTranscript: number };
  readonly systemMessage: ChatMessage;
  readonly redact: Redact;
  readonly logger: Logger;
  /** Told of what each summary cost (as far as the provider said), and whose conversation it was made for. */
  readonly onUsage?: (usage: Usage | undefined, correspondent: string) => void;
  /** Runs `change` on `conversation` between its writes, then stores it (store-sync.ts). */
  readonly amend: (conversation: Conversation, change: () => Promise<void>) => Promise<void>;
  /**
   * Told of the message ids a summary lets go of: those of folded turns
   * past the EARLIER_IDS the conversation keeps. It holds them no more, so
   * no index should point them at it.
   */
  readonly onLetGo?: (conversation: Conversation, ids: readonly string[]) => void;
  /**
   * What the provider counts for an estimate of fae's (tokens.ts: learnt
   * from the usage it reports); estimates as they are without it.
   */
  readonly scale?: (estimate: number) => number;
}

/** How many messages `turns` hold. */
const messageCount = (turns: readonly Turn[]) => turns.reduce((n, t) => n + t.messages.length, 0);

/**
 * After a summary the model could not write, the turns that pass before
 * the next try: twice as many after each failure, up to this. Tried at
 * every request, a model that never manages one would be sent an extra
 * request, the largest of all, for every request of the conversation.
 */
export const MAX_RETRY_TURNS = 64;

/**
 * What a conversation keeps of the ids of `earlier` (its own) and then of
 * `folded` turns: the latest EARLIER_IDS; and the ids it lets go of.
 */
const keptIds = (earlier: readonly string[], folded: readonly Turn[]) => {
  const all = earlier.concat(folded.flatMap(idsOf));
  const kept = all.slice(-EARLIER_IDS);
  const still = new Set(kept);
  return { kept, letGo: all.slice(0, all.length - kept.length).filter(id => !still.has(id)) };
};

/** What one summary may take, of `budget`. */
const summaryTokensOf = (budget: number) => Math.max(64, Math.floor(budget / 8));

/**
 * How many of the oldest turns to fold so that the request takes half
 * the budget (so compaction is rare); past `maxTranscript` messages, down
 * to half of it as well.
 */
const foldCount = (
  { systemMessage, maxTranscript }: { systemMessage: ChatMessage; maxTranscript: number },
  conversation: Conversation,
  current: readonly ChatMessage[],
  schemas: readonly ToolSchema[],
  budget: number,
) => {
  const { turns } = conversation;
  const fixed = estimateMessages([systemMessage, ...current]) + estimateSchemas(schemas) + summaryTokensOf(budget);
  let count = turnsToFold(turns.map(t => t.messages), fixed, Math.floor(budget / 2));
  const total = messageCount(turns) + current.length;
  if (total > maxTranscript) {
    let dropped = messageCount(turns.slice(0, count));
    while (count < turns.length && total - dropped > Math.floor(maxTranscript / 2)) {
      dropped += turns[count].messages.length;
      count += 1;
    }
  }
  return count;
};

/** How many of the oldest `count` turns one summary takes: those whose text, with the summary so far, fits. */
const batchSize = (turns: readonly Turn[], count: number, budget: number) => {
  let batch = 0;
  let size = 400 + summaryTokensOf(budget);
  while (batch < count && (batch === 0 || size + estimateMessages(turns[batch].messages) <= budget)) {
    size += estimateMessages(turns[batch].messages);
    batch += 1;
  }
  return batch;
};

export const makeCompaction = (options: CompactionOptions) => {
  const { provider, limits, systemMessage, redact, logger, onUsage, amend, onLetGo = () => {}, scale = (estimate: number) => estimate } = options;
  /**
   * What a request may take, in fae's estimates, read as each compaction
   * begins: the server's window, learnt at the first request or narrowed
   * by a refusal, replaces the configured one (context-window.ts).
   */
  const budgetNow = () => Math.floor((limits.contextTokens * 1000) / Math.max(1000, scale(1000)));
  /** Conversations whose last summary failed: how often in a row, and the turn (its sequence number) from which to try again. */
  const deferred = new WeakMap<Conversation, { readonly failures: number; readonly fromSeq: number }>();

  /** Folds the oldest `batch` turns into the summary; false when the model could not summarize them. */
  const foldBatch = async (conversation: Conversation, batch: number, budget: number, options: ChatOptions) => {
    const folded = conversation.turns.slice(0, batch);
    let summary;
    try {
      summary = await summarize(provider, conversation.summary, folded.map(t => t.messages), summaryTokensOf(budget), options);
    } catch (error) {
      // Aborted with its turn: no failure, and the turn asks nothing more.
      options.signal?.throwIfAborted();
      const failures = (deferred.get(conversation)?.failures ?? 0) + 1;
      const retryAfterTurns = Math.min(2 ** (failures - 1), MAX_RETRY_TURNS);
      deferred.set(conversation, { failures, fromSeq: conversation.nextSeq + retryAfterTurns });
      logger.warn('conversation-compaction-failed', {
        conversation: conversation.key,
        error: redact(error instanceof Error ? error.message : String(error)),
        retryAfterTurns,
      });
      return false;
    }
    deferred.delete(conversation);
    const inputTokens = summary.usage?.inputTokens ?? 0;
    const outputTokens = summary.usage?.outputTokens ?? 0;
    onUsage?.(summary.usage, conversation.correspondent);
    logger.event('conversation-compacted', { conversation: conversation.key, turns: batch, inputTokens, outputTokens });
    conversation.summary = redact(summary.text);
    const { kept, letGo } = keptIds(conversation.earlier, folded);
    conversation.earlier = harden(kept);
    conversation.turns = conversation.turns.slice(batch);
    conversation.opening = undefined;
    // Stored with the summary, as a new generation (store-sync.ts).
    conversation.summaryUnstored = true;
    conversation.unstored = 0;
    onLetGo(conversation, letGo);
    return true;
  };

  /**
   * Folds the oldest turns into the summary, in batches that each fit the
   * budget themselves. A failed summary leaves the turns as they are: the
   * window then keeps the request within bounds, and the next try waits
   * (MAX_RETRY_TURNS).
   */
  const foldOldTurns = async (
    conversation: Conversation,
    current: readonly ChatMessage[],
    schemas: readonly ToolSchema[],
    options: ChatOptions,
  ) => {
    const budget = budgetNow();
    for (let count = foldCount({ systemMessage, maxTranscript: limits.maxTranscript }, conversation, current, schemas, budget); count > 0; ) {
      const batch = batchSize(conversation.turns, count, budget);
      // Sequential on purpose: each batch builds on the previous summary.
      // eslint-disable-next-line no-await-in-loop
      if (!(await foldBatch(conversation, batch, budget, options))) return;
      count -= batch;
    }
  };

  /**
   * Compacts `conversation` so that its next request (the turn `current`,
   * offering `schemas`) fits. The summary is stored as one new generation
   * once every batch is folded; not while what is stored of the
   * conversation is unknown (it would replace that), nor once it is
   * forgotten.
   */
  return async (
    conversation: Conversation,
    current: readonly ChatMessage[],
    schemas: readonly ToolSchema[],
    options: ChatOptions,
  ) => {
    if (conversation.history === 'unknown' || conversation.forgotten) return;
    // A summary failed lately: the window keeps the requests within bounds meanwhile.
    if (conversation.nextSeq < (deferred.get(conversation)?.fromSeq ?? 0)) return;
    await amend(conversation, () => foldOldTurns(conversation, current, schemas, options));
  };
};
harden(makeCompaction);

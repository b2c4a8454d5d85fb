// src/conversations/requests/: what each model request carries: the window,
// token estimates, each request's meter, and compaction.
// Imports: the layers below src/conversations, and the rest of it.
//
// What each model request of a turn carries: the opening (the system
// prompt, the summary, the conversation's turns), made and measured once
// per change of the conversation rather than once per request, then the
// turn so far. When that would pass the budget, old turns are folded into
// the summary first (compaction.ts); when it still does, it is cut to a
// window (window.ts). Each request goes out with its estimate and its
// cache hints attached (request-meter.ts).
//
// Each request of a conversation starts with exactly what the one before
// it sent, so that a provider's prompt cache serves it: nothing in it
// changes from one request to the next (the opening is the stored turns,
// the turn so far is sent as it will be stored, the window stays put), but
// for a compaction or a change of the tools.
import { createHash } from 'node:crypto';
import type { CacheHints, ChatMessage, ChatOptions, ToolSchema } from '../../../providers/types.js';
import type { Conversation, Opening } from '../conversation-state.js';
import type { RequestMeter } from './request-meter.js';
import { estimateMessages, estimateSchemas } from './tokens.js';
import { windowRequest } from './window.js';

export interface RequestLimits {
  readonly contextTokens: number;
  readonly maxMessages: number | undefined;
  readonly maxTranscript: number;
}

export interface RequestsOptions {
  readonly limits: RequestLimits;
  readonly systemMessage: ChatMessage;
  /** Folds old turns of `conversation` into its summary (compaction.ts). */
  readonly compact: (
    conversation: Conversation,
    current: readonly ChatMessage[],
    schemas: readonly ToolSchema[],
    options: ChatOptions,
  ) => Promise<void>;
  readonly meter: RequestMeter;
}

/**
 * A list of messages that are each hardened already, made immutable.
 * Frozen rather than hardened: harden would walk every message again on
 * every request (about 1 ms for 2,000 messages); the list's elements and
 * Array.prototype are frozen (lockdown), so nothing in it can change.
 */
const frozenList = (messages: ChatMessage[]): readonly ChatMessage[] => Object.freeze(messages);

/**
 * `first` then `then`, as one frozen list. By concat, not spread: under
 * lockdown V8 no longer takes its fast path for spreading an array (the
 * array iterator it guards is frozen), and a spread walks the iterator
 * element by element: 17 µs for a conversation of 1,200 messages against
 * 4 µs, at every request.
 */
const joined = (first: readonly ChatMessage[], then: readonly ChatMessage[]) => frozenList(first.concat(then));

/**
 * A conversation's name for a provider's prompt cache (CacheHints.key):
 * a hash of its key, itself made of hashes, so no correspondent's id
 * leaves fae; the same after a restart.
 */
export const cacheKeyOf = (conversationKey: string) =>
  `fae-${createHash('sha256').update(`fae prompt cache\n${conversationKey}`).digest('hex').slice(0, 32)}`;
harden(cacheKeyOf);

/** How many leading messages of a window stay in the next request: all, unless it is cut inside the turn. */
const stableIn = (window: ReturnType<typeof windowRequest>) => {
  if (window.start !== undefined) return window.messages.length;
  let head = 0;
  while (window.messages[head]?.role === 'system') head += 1;
  // Cut inside the turn: the system part and the turn's question stay; the latest calls move on.
  return window.messages[head]?.role === 'user' ? head + 1 : head;
};

export const makeRequests = ({ limits, systemMessage, compact, meter }: RequestsOptions) => {
  /** The system messages every request of `conversation` opens with. */
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

  const openingOf = (conversation: Conversation): Opening => {
    if (conversation.opening === undefined) {
      const turnMessages = conversation.turns.flatMap(t => t.messages);
      const messages = joined(headOf(conversation), turnMessages);
      // Frozen, as its list: hardening it would walk the list after all.
      conversation.opening = Object.freeze({ messages, tokens: estimateMessages(messages), count: turnMessages.length });
    }
    return conversation.opening;
  };

  /**
   * A turn of `messages` was added to `conversation`: an opening already
   * made grows by them rather than being made afresh from every turn (and
   * every message measured again) at the next request.
   */
  const extend = (conversation: Conversation, messages: readonly ChatMessage[]) => {
    const { opening } = conversation;
    if (opening === undefined) return;
    conversation.opening = Object.freeze({
      messages: joined(opening.messages, messages),
      tokens: opening.tokens + estimateMessages(messages),
      count: opening.count + messages.length,
    });
  };

  /** The whole conversation with `current` after it, measured. */
  const measure = (conversation: Conversation, current: readonly ChatMessage[], schemas: readonly ToolSchema[]) => {
    const opening = openingOf(conversation);
    return {
      opening,
      tokens: opening.tokens + estimateMessages(current) + estimateSchemas(schemas),
      count: opening.count + current.length,
    };
  };

  /** Each conversation's cache key, made once. */
  const cacheKeys = new WeakMap<Conversation, string>();
  const hints = (conversation: Conversation, stableMessages: number): CacheHints => {
    let key = cacheKeys.get(conversation);
    if (key === undefined) {
      key = cacheKeyOf(conversation.key);
      cacheKeys.set(conversation, key);
    }
    return harden({ key, stableMessages });
  };

  /**
   * The request for the next model call of the turn `current` in
   * `conversation` (compacting first if needed); the signal of `options`
   * aborts the summary request (which is no part of the turn's answer, so
   * its text is not shown, and no part of the conversation's prefix).
   */
  const prepare = async (
    conversation: Conversation,
    current: readonly ChatMessage[],
    schemas: readonly ToolSchema[],
    options: ChatOptions = {},
  ) => {
    let whole = measure(conversation, current, schemas);
    // What no folding makes smaller: the system prompt, the tools and this turn.
    const fixed = estimateMessages([systemMessage, ...current]) + estimateSchemas(schemas);
    if (
      conversation.turns.length > 0 &&
      (meter.scale(whole.tokens) > limits.contextTokens || whole.count > limits.maxTranscript) &&
      // A summary is worth its request only where it can make the request fit.
      (meter.scale(fixed) < limits.contextTokens || whole.count > limits.maxTranscript)
    ) {
      await compact(conversation, current, schemas, options.signal === undefined ? {} : { signal: options.signal });
      whole = measure(conversation, current, schemas);
    }
    const all = joined(whole.opening.messages, current);
    // The whole conversation fits as it is (the common case): no window to cut.
    if (
      (limits.maxMessages === undefined || whole.count <= limits.maxMessages) &&
      meter.scale(whole.tokens) <= limits.contextTokens
    ) {
      conversation.windowStart = undefined;
      return meter.prepared(all, { estimate: whole.tokens, cache: hints(conversation, all.length) });
    }
    const window = windowRequest(all, schemas, limits, meter, conversation.windowStart);
    conversation.windowStart = window.start;
    return meter.prepared(window.messages, {
      estimate: window.tokens,
      cache: hints(conversation, stableIn(window)),
    });
  };

  return harden({ headOf, prepare, extend });
};
harden(makeRequests);
export type Requests = ReturnType<typeof makeRequests>;

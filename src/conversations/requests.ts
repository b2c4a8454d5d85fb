// What each model request of a turn carries: the opening (the system
// prompt, the summary, the conversation's turns), made and measured once
// per change of the conversation rather than once per request, then the
// turn so far. When that would pass the budget, old turns are folded into
// the summary first (compaction.ts); when it still does, it is cut to a
// window (window.ts). Each request goes out with its estimate attached
// (request-meter.ts).
import type { ChatMessage, ChatOptions, ToolSchema } from '../../providers/types.js';
import type { Conversation, Opening } from './conversation-state.js';
import type { RequestMeter } from './request-meter.js';
import { estimateMessages, estimateRequest, estimateSchemas } from './tokens.js';
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
      const messages = frozenList([...headOf(conversation), ...turnMessages]);
      // Frozen, as its list: hardening it would walk the list after all.
      conversation.opening = Object.freeze({ messages, tokens: estimateMessages(messages), count: turnMessages.length });
    }
    return conversation.opening;
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

  /**
   * The request for the next model call of the turn `current` in
   * `conversation` (compacting first if needed); `options` reach the
   * summary request (its signal aborts it).
   */
  const prepare = async (
    conversation: Conversation,
    current: readonly ChatMessage[],
    schemas: readonly ToolSchema[],
    options: ChatOptions = {},
  ) => {
    let whole = measure(conversation, current, schemas);
    if (
      conversation.turns.length > 0 &&
      (meter.scale(whole.tokens) > limits.contextTokens || whole.count > limits.maxTranscript)
    ) {
      await compact(conversation, current, schemas, options);
      whole = measure(conversation, current, schemas);
    }
    const all = frozenList([...whole.opening.messages, ...current]);
    // The whole conversation fits as it is (the common case): no window to cut.
    if (
      (limits.maxMessages === undefined || whole.count <= limits.maxMessages) &&
      meter.scale(whole.tokens) <= limits.contextTokens
    ) {
      return meter.estimated(all, whole.tokens);
    }
    const request = windowRequest(all, schemas, limits, meter);
    return meter.estimated(request, estimateRequest(request, schemas));
  };

  return harden({ headOf, prepare });
};
harden(makeRequests);
export type Requests = ReturnType<typeof makeRequests>;

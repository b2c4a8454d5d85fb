// What one request carries: the system prompt and the summary, then a
// recent part of the conversation that fits both ceilings, the context
// budget (FAE_CONTEXT_TOKENS, counting the tool schemas too) and
// LAL_MAX_MESSAGES (an exact ceiling on non-system messages). The window
// opens at a user message; when the current turn alone is too long, it
// keeps the turn's user message and its most recent whole call/result
// groups (providers/truncate.ts).
//
// The window stays put. Cut afresh from the front on every request, it
// would open one message later each time, so no request would start like
// the one before it and a provider's prompt cache would never be read.
// Instead it opens where the last window did while that still fits, and
// when it no longer does, it moves on to a user message late enough that
// the window takes half of what it may: the requests after that repeat one
// another again until it fills up.
import type { ChatMessage, ToolSchema } from '../../../providers/types.js';
import { windowMessages, type WindowFits } from '../../../providers/truncate.js';
import { estimateMessages, estimateRequest, estimateSchemas, type TokenMeter } from './tokens.js';

export interface WindowLimits {
  readonly contextTokens: number;
  readonly maxMessages: number | undefined;
}

export interface Window {
  readonly messages: readonly ChatMessage[];
  /**
   * The message it opens with after the system messages, when it holds
   * every message after that one (the next window may open there again);
   * undefined when it is cut inside the current turn.
   */
  readonly start: ChatMessage | undefined;
  /** The plain estimate of the request it makes (estimateRequest of its messages and the schemas). */
  readonly tokens: number;
}

/**
 * Whether `count` non-system messages of `tokens` (plain estimate) fit the
 * ceilings, or `share` of what the ceilings leave beside the request's
 * fixed part.
 */
const within =
  (fixed: number, { contextTokens, maxMessages }: WindowLimits, meter: Pick<TokenMeter, 'scale'>, share: number) =>
  (count: number, tokens: number) => {
    const fixedTokens = meter.scale(fixed);
    return (
      (maxMessages === undefined || count <= Math.max(1, Math.floor(maxMessages * share))) &&
      meter.scale(fixed + tokens) <= fixedTokens + (contextTokens - fixedTokens) * share
    );
  };

/** within, as a test of the non-system messages themselves. */
const fitting = (...args: Parameters<typeof within>): WindowFits => {
  const fits = within(...args);
  return rest => fits(rest.length, estimateMessages(rest));
};

/** The window's first non-system message, when the window holds everything after it in `messages`. */
const wholeFrom = (messages: readonly ChatMessage[], window: readonly ChatMessage[], head: number) => {
  const first = window[head];
  return first !== undefined && window.length - head === messages.length - messages.indexOf(first) ? first : undefined;
};

/**
 * The window of `messages`, opening at `start` (the last window's) while
 * that fits. Frozen, not hardened: its messages are immutable already, and
 * hardening a list of a thousand read every element's descriptor at every
 * request (half of a turn's time once a long conversation was windowed).
 */
export const windowRequest = (
  messages: readonly ChatMessage[],
  schemas: readonly ToolSchema[],
  limits: WindowLimits,
  meter: Pick<TokenMeter, 'scale'>,
  start?: ChatMessage,
): Window => {
  let head = 0;
  while (head < messages.length && messages[head].role === 'system') head += 1;
  const fixed = estimateMessages(messages.slice(0, head)) + estimateSchemas(schemas);
  const at = start === undefined ? -1 : messages.indexOf(start, head);
  if (at >= head) {
    // Measured once: the same figure is the request's estimate.
    const rest = messages.slice(at);
    const tokens = estimateMessages(rest);
    if (within(fixed, limits, meter, 1)(rest.length, tokens)) {
      return Object.freeze({ messages: Object.freeze(messages.slice(0, head).concat(rest)), start, tokens: fixed + tokens });
    }
  }
  const cut = (chosen: readonly ChatMessage[], opening: ChatMessage | undefined) =>
    Object.freeze({ messages: chosen, start: opening, tokens: estimateRequest(chosen, schemas) });
  const roomy = windowMessages(messages, fitting(fixed, limits, meter, 1 / 2));
  const roomyStart = wholeFrom(messages, roomy, head);
  if (roomyStart !== undefined) return cut(roomy, roomyStart);
  // The current turn alone takes more than half of what a request may.
  const tight = windowMessages(messages, fitting(fixed, limits, meter, 1));
  return cut(tight, wholeFrom(messages, tight, head));
};
harden(windowRequest);

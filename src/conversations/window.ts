// What one request carries: the system prompt and the summary, then the
// longest recent part of the conversation that fits both ceilings, the
// context budget (FAE_CONTEXT_TOKENS, counting the tool schemas too) and
// LAL_MAX_MESSAGES (an exact ceiling on non-system messages). The window
// opens at a user message; when the current turn alone is too long, it
// keeps the turn's user message and its most recent whole call/result
// groups (providers/truncate.ts).
import type { ChatMessage, ToolSchema } from '../../providers/types.js';
import { windowMessages } from '../../providers/truncate.js';
import { estimateMessages, estimateSchemas, type TokenMeter } from './tokens.js';

export interface WindowLimits {
  readonly contextTokens: number;
  readonly maxMessages: number | undefined;
}

export const windowRequest = (
  messages: readonly ChatMessage[],
  schemas: readonly ToolSchema[],
  { contextTokens, maxMessages }: WindowLimits,
  meter: Pick<TokenMeter, 'scale'>,
): readonly ChatMessage[] => {
  const system = messages.filter(m => m.role === 'system');
  const fixed = estimateMessages(system) + estimateSchemas(schemas);
  return windowMessages(
    messages,
    rest =>
      (maxMessages === undefined || rest.length <= maxMessages) &&
      meter.scale(fixed + estimateMessages(rest)) <= contextTokens,
  );
};
harden(windowRequest);

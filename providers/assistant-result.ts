// Building the one result shape every adapter returns, and reading stored
// tool-call arguments without ever throwing.
import type { ChatResult, StopReason, ToolCall, Usage } from './types.js';

/**
 * Stored arguments as the object an API wants. Arguments are kept as the
 * model wrote them, which may be invalid JSON or not an object (upstream
 * defect L3: one bad call made every later request throw); such arguments are
 * sent as an empty object, and the tool's own error result tells the model
 * what went wrong.
 */
export const parseToolArguments = (text: string): Record<string, unknown> => {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
};
harden(parseToolArguments);

/** Arguments as the JSON text the contract carries, whatever the API returned. */
export const argumentsText = (value: unknown): string => {
  if (typeof value === 'string') {
    return value;
  }
  return JSON.stringify(value ?? {});
};
harden(argumentsText);

export const makeToolCall = (id: string, name: string, args: unknown): ToolCall =>
  harden({ id, type: 'function', function: { name, arguments: argumentsText(args) } });
harden(makeToolCall);

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0;

/**
 * Token counts as an API gave them, any of them missing: all input (cached
 * included), output, and of the input, read from and written to the cache.
 */
export interface UsageCounts {
  readonly input?: unknown;
  readonly output?: unknown;
  readonly cached?: unknown;
  readonly cacheWrite?: unknown;
}

/** Usage, when the API reported both input and output; the cache counts when it reported them. */
export const makeUsage = ({ input, output, cached, cacheWrite }: UsageCounts): Usage | undefined =>
  isCount(input) && isCount(output)
    ? harden({
        inputTokens: input,
        outputTokens: output,
        ...(isCount(cached) ? { cachedInputTokens: cached } : {}),
        ...(isCount(cacheWrite) ? { cacheWriteInputTokens: cacheWrite } : {}),
      })
    : undefined;
harden(makeUsage);

/** An API's stop reason through its table; one the table does not know is 'other'. */
export const mapStopReason = (
  table: Readonly<Record<string, StopReason>>,
  reason: string | null | undefined,
): StopReason | undefined =>
  reason === undefined || reason === null || reason === '' ? undefined : (table[reason] ?? 'other');
harden(mapStopReason);

export const makeChatResult = (parts: {
  readonly content: string | null | undefined;
  readonly toolCalls: readonly ToolCall[];
  readonly usage: Usage | undefined;
  readonly stopReason: StopReason | undefined;
}): ChatResult => {
  const { content, toolCalls, usage, stopReason } = parts;
  const message = {
    role: 'assistant' as const,
    content: content ?? '',
    ...(toolCalls.length > 0 ? { tool_calls: [...toolCalls] } : {}),
  };
  return harden({
    message,
    ...(usage ? { usage } : {}),
    ...(stopReason ? { stopReason } : {}),
  });
};
harden(makeChatResult);

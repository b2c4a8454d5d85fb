// Token counts. Providers report what a request cost only after it was
// made, and some never do, so the budget works on an estimate from the text
// (about four characters a token), corrected by the ratio between reported
// and estimated counts once a provider has reported one.
import type { ChatMessage, ToolSchema } from '../../../providers/types.js';

/** Characters per token of the plain estimate. */
const CHARS_PER_TOKEN = 4;
/** What a message costs beyond its text (role, separators). */
const MESSAGE_OVERHEAD = 4;

// Messages are hardened and never change: each is measured once.
const measured = new WeakMap<object, number>();

/** The plain estimate of one message, without correction. */
export const estimateMessage = (message: ChatMessage): number => {
  const known = measured.get(message);
  if (known !== undefined) return known;
  let chars = message.content.length;
  for (const call of message.tool_calls ?? []) {
    chars += call.function.name.length + call.function.arguments.length + call.id.length;
  }
  chars += (message.tool_call_id?.length ?? 0) + (message.name?.length ?? 0);
  const tokens = Math.ceil(chars / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD;
  if (Object.isFrozen(message)) measured.set(message, tokens);
  return tokens;
};
harden(estimateMessage);

export const estimateMessages = (messages: readonly ChatMessage[]): number =>
  messages.reduce((sum, message) => sum + estimateMessage(message), 0);
harden(estimateMessages);

const measuredSchemas = new WeakMap<object, number>();

/** The tool schemas travel with every request and count against it. */
export const estimateSchemas = (schemas: readonly ToolSchema[]): number => {
  const known = measuredSchemas.get(schemas);
  if (known !== undefined) return known;
  const tokens = Math.ceil(JSON.stringify(schemas).length / CHARS_PER_TOKEN);
  if (Object.isFrozen(schemas)) measuredSchemas.set(schemas, tokens);
  return tokens;
};
harden(estimateSchemas);

/** The plain estimate of a whole request. */
export const estimateRequest = (
  messages: readonly ChatMessage[],
  schemas: readonly ToolSchema[],
): number => estimateMessages(messages) + estimateSchemas(schemas);
harden(estimateRequest);

export interface TokenMeter {
  /** The corrected count for a plain estimate. */
  readonly scale: (estimate: number) => number;
  /** Learns from a request whose real input size the provider reported. */
  readonly observe: (estimate: number, reported: number | undefined) => void;
}

/**
 * Keeps the latest reported/estimated ratio, bounded so that one odd report
 * (a cached prompt, a provider counting differently) cannot make the budget
 * meaningless.
 */
export const makeTokenMeter = (): TokenMeter => {
  let ratio = 1;
  return harden({
    scale: (estimate: number) => Math.ceil(estimate * ratio),
    observe: (estimate: number, reported: number | undefined) => {
      if (reported === undefined || reported <= 0 || estimate <= 0) return;
      ratio = Math.min(4, Math.max(0.5, reported / estimate));
    },
  });
};
harden(makeTokenMeter);

// The boundary between what a model writes and what a tool receives. Tool
// arguments are JSON objects; anything else is refused loudly instead of
// being replaced by {} (upstream's silent fallback misled the model).
import { q } from '@endo/errors';

export type ToolArguments = Readonly<Record<string, unknown>>;

export type ParsedArguments =
  | { readonly ok: true; readonly args: ToolArguments }
  | { readonly ok: false; readonly error: string };

export const parseToolArguments = (text: string): ParsedArguments => {
  // An empty string is how some models say "no arguments".
  if (text.trim() === '') {
    return harden({ ok: true, args: {} });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return harden({
      ok: false,
      error: `The arguments were not valid JSON (${(error as Error).message}). Call the tool again with a JSON object, for example {"name": "value"}.`,
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return harden({
      ok: false,
      error: `The arguments must be a JSON object, not ${q(value)}. Call the tool again with a JSON object.`,
    });
  }
  return harden({ ok: true, args: value as ToolArguments });
};
harden(parseToolArguments);

/**
 * A message number as the daemon wants it (a bigint), from what a model
 * writes: an integer or a string of digits. Anything else is refused.
 */
export const toMessageNumber = (value: unknown): bigint => {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) {
    return BigInt(value);
  }
  if (typeof value === 'string' && /^\s*\d+\s*$/.test(value)) {
    return BigInt(value.trim());
  }
  if (typeof value === 'bigint' && value >= 0n) {
    return value;
  }
  throw Error(
    `messageNumber must be a whole number such as 3 or "3", not ${q(value)}`,
  );
};
harden(toMessageNumber);

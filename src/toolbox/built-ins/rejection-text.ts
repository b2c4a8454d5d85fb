// Why a tool call failed, in words the model can read, whatever the tool
// rejected with. Through CapTP a rejection may be an Error, but also a plain
// record, a string, a number or undefined (a tool may throw anything);
// String() would turn a record into "[object Object]". Errors give their
// message; any other passable is written as Justin, Endo's readable
// notation; only what is not passable at all falls back to String().
import { makeMarshal, decodeToJustin, passStyleOf } from '@endo/marshal';
import type { Passable } from '@endo/marshal';

/** Longest rejection text kept: a reason is a sentence, not a payload. */
const MAX_REASON_CHARS = 2_000;

// Errors nested in a record are written as Error("message") with no log
// line (the default marshaller prints every error it encodes).
const { toCapData } = makeMarshal(
  (_value: unknown) => 'remote',
  undefined,
  { errorTagging: 'off', marshalSaveError: () => {} },
);

/** Justin text of a passable, or undefined for anything that is not one. */
const asJustin = (value: unknown): string | undefined => {
  try {
    // The boundary with whatever a tool rejected with: checked by passStyleOf.
    const passable = harden(value) as Passable;
    passStyleOf(passable);
    const { body, slots } = toCapData(passable);
    return decodeToJustin(JSON.parse(body), false, slots);
  } catch {
    return undefined;
  }
};

const cap = (text: string) =>
  text.length <= MAX_REASON_CHARS ? text : `${text.slice(0, MAX_REASON_CHARS)}… (${text.length - MAX_REASON_CHARS} more characters)`;

/** A rejection reason as one line of text, for logs and notices. */
export const rejectionText = (reason: unknown): string => {
  if (reason instanceof Error) {
    return cap(reason.message === '' ? reason.name : reason.message);
  }
  if (typeof reason === 'string') {
    return cap(reason === '' ? 'the tool failed without saying why (an empty reason)' : reason);
  }
  if (reason === undefined || reason === null) {
    return `the tool failed without saying why (it rejected with ${String(reason)})`;
  }
  return cap(asJustin(reason) ?? String(reason));
};
harden(rejectionText);

/**
 * A rejection as the tool result the model reads: { error: … }, where the
 * error is the message of an Error or a text, and any other passable reason
 * itself ({ error: { code: "E_BUSY", retryAfter: 5 } }), not a string of it.
 */
export const rejectionResult = (reason: unknown): string => {
  if (reason instanceof Error || typeof reason === 'string' || reason === undefined || reason === null) {
    return asJustin({ error: rejectionText(reason) }) ?? rejectionText(reason);
  }
  return cap(asJustin({ error: reason }) ?? asJustin({ error: String(reason) }) ?? String(reason));
};
harden(rejectionResult);

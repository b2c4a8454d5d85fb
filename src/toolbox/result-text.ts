// How tool results reach the model: a string as itself (a file's contents
// stay readable), anything else as Justin, Endo's readable notation, which
// keeps bigints, undefined and remotables that JSON would lose or reject.
import { passableAsJustin, passStyleOf } from '@endo/marshal';
import type { Passable } from '@endo/marshal';

export const resultAsText = (value: unknown): string => {
  if (typeof value === 'string') {
    return value;
  }
  try {
    // The boundary with arbitrary tool output: checked by passStyleOf.
    const hardened = harden(value) as Passable;
    passStyleOf(hardened);
    return passableAsJustin(hardened, false);
  } catch {
    // Not passable (a local tool returned something odd): say what it is.
    return String(value);
  }
};
harden(resultAsText);

/** A tool failure as the model reads it. */
export const errorAsText = (message: string): string =>
  passableAsJustin(harden({ error: message }), false);
harden(errorAsText);

// How tool results reach the model: a string as itself (a file's contents
// stay readable), anything else as Justin, Endo's readable notation, which
// keeps bigints, undefined and remotables that JSON would lose or reject.
import { passableAsJustin, passStyleOf } from '@endo/marshal';
import type { Passable } from '@endo/marshal';

/** A list of strings and nothing else (no holes, which Justin refuses). */
const isStringList = (value: unknown): value is readonly string[] => {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i += 1) {
    if (typeof value[i] !== 'string') return false;
  }
  return true;
};

export const resultAsText = (value: unknown): string => {
  if (typeof value === 'string') {
    return value;
  }
  if (isStringList(value)) {
    // What list, lookup and most directory tools return: Justin writes it as JSON does.
    return JSON.stringify(value);
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

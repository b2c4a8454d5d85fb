// Resolving a name before judging it: a name fae keeps a directory under
// (tools/, its conversation store) is replaced only when it is known to
// hold plain data. A directory the daemon cannot list just now (slow,
// restarting, refusing) is never taken for something else.
import { E } from '@endo/far';
import { passStyleOf } from '@endo/marshal';
import type { Passable } from '@endo/marshal';
import type { GuestPowers, Ref } from './endo-types.js';
import { DEFAULT_RETRY_MS, retrying } from './backoff.js';

/** Tries of the look-up before nothing is judged. */
const ATTEMPTS = 3;

/**
 * Whether a looked-up value may be an object with methods (a directory, a
 * tool: anything remote), rather than plain data.
 */
export const mayBeRemote = (value: unknown) => {
  try {
    // Values from the daemon are passable; anything else is not judged.
    return passStyleOf(value as Passable) === 'remotable';
  } catch {
    return true;
  }
};
harden(mayBeRemote);

/**
 * What `name` holds, when it is plain data (a value stored over it, never
 * a directory); undefined when it may be a directory or the daemon would
 * not say.
 */
export const plainDataAt = async (powers: Ref<GuestPowers>, name: string) => {
  const looked = await retrying(ATTEMPTS, DEFAULT_RETRY_MS, () => E(powers).lookup(name)).then(
    value => ({ value }),
    () => undefined,
  );
  return looked === undefined || mayBeRemote(looked.value) ? undefined : looked;
};
harden(plainDataAt);

// A value fae keeps under one name in its directory and rewrites as it
// changes (its grants, its notes): the writes go out one at a time, in
// the order they were made, so the last value written is the last one
// stored, whatever the daemon's latency.
import { E } from '@endo/far';
import type { GuestPowers, Ref } from './endo-types.js';

/** Stores values under `name`, one write at a time; each resolves once stored, or rejects with the daemon's refusal. */
export const makeOrderedWrites = (powers: Ref<GuestPowers>, name: string) => {
  let last: Promise<void> = Promise.resolve();
  return (value: unknown): Promise<void> => {
    const written = last.then(() => E(powers).storeValue(harden(value), name));
    // The next write waits for this one, whatever became of it.
    last = written.catch(() => {});
    return written;
  };
};
harden(makeOrderedWrites);

// Waiting a while for something to arrive under a key, such as fae's own
// copy of a reply, keyed by the id of the message it answers. One wait per
// key: a newer one replaces the older, which gives up. A wait nothing
// settles gives up after `waitMs`. Giving up resolves undefined.
import { makeLocalKit } from './local-kit.js';
import { REPORTED_ALREADY, inBackground } from './background.js';

export const makeKeyedWaits = <T, D = undefined>(waitMs: number) => {
  /** By key: what the waiter said it waits for, and how it is settled. */
  const waits = new Map<string, { readonly detail: D; readonly settle: (value: T | undefined) => void }>();
  return harden({
    /** Resolves with what `settle` gives for `key`, or undefined once given up. */
    wait: (key: string, detail: D): Promise<T | undefined> => {
      const { promise, resolve } = makeLocalKit<T | undefined>();
      waits.get(key)?.settle(undefined);
      const entry = { detail, settle: resolve };
      waits.set(key, entry);
      const timer = setTimeout(() => resolve(undefined), waitMs);
      timer.unref?.();
      // A wait only resolves.
      inBackground(
        promise.then(() => {
          clearTimeout(timer);
          if (waits.get(key) === entry) waits.delete(key);
        }),
        REPORTED_ALREADY,
      );
      return promise;
    },
    /** What the wait for `key` was given; undefined when none waits. */
    detailOf: (key: string) => waits.get(key)?.detail,
    /** Settles the wait for `key` with `value`; false when none waits. */
    settle: (key: string, value: T) => {
      const entry = waits.get(key);
      entry?.settle(value);
      return entry !== undefined;
    },
  });
};
harden(makeKeyedWaits);

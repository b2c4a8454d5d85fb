// makeRefIterator (spec §5.6): turns a far async-iterator reference (or a
// promise for one, e.g. an unawaited E(powers).followMessages()) into a
// local async iterator. Each call forwards its arguments unchanged through
// E() and returns that promise: no buffering, no prefetch.
import { E } from '@endo/far';

/** A remote reference to an async iterator; only E() works on it. */
export type IteratorRef = object;

export const makeRefIterator = <T = unknown>(
  ref: IteratorRef | Promise<IteratorRef>,
): AsyncIterableIterator<T> => {
  // `any`: the reference is remote and untyped.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const far = ref as any;
  const iterator: AsyncIterableIterator<T> = harden({
    next: (...args: [] | [unknown]) => E(far).next(...args) as Promise<IteratorResult<T>>,
    return: (...args: [] | [unknown]) => E(far).return(...args) as Promise<IteratorResult<T>>,
    throw: (error?: unknown) => E(far).throw(error) as Promise<IteratorResult<T>>,
    [Symbol.asyncIterator]: () => iterator,
  });
  return iterator;
};
harden(makeRefIterator);

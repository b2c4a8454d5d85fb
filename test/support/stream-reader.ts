// A test-side client for August's syn/ack PassableReader (next spec §3.2),
// so helpers can read follow* results of every dialect alike. fae's own
// reader lives in src/daemon/; this one only serves the tests.
import { E } from '@endo/far';
import { makePromiseKit, type PromiseKit } from '@endo/promise-kit';

interface Node {
  readonly value: unknown;
  readonly promise: Promise<Node> | null;
}

// `any`: the reader is a remote reference.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

export const iterateStreamReader = <T>(reader: unknown): AsyncIterableIterator<T> => {
  let syn: PromiseKit<unknown> = makePromiseKit();
  let ack: Promise<Node> | undefined;
  let done = false;
  // One pull at a time: each waits for the previous ack.
  let queue: Promise<unknown> = Promise.resolve();
  const start = () => {
    if (ack === undefined) ack = E(reader as Far).stream(syn.promise) as Promise<Node>;
    return ack;
  };
  const step = async (close: boolean, value?: unknown): Promise<IteratorResult<T>> => {
    if (done) return harden({ done: true, value: undefined });
    // The ack is awaited below, once the next syn is in place.
    void start();
    const nextSyn = makePromiseKit<unknown>();
    syn.resolve(harden({ value, promise: close ? null : nextSyn.promise }));
    syn = nextSyn;
    const node = await (ack as Promise<Node>);
    if (node.promise === null || close) {
      done = true;
      return harden({ done: true, value: node.value });
    }
    ack = node.promise;
    return harden({ done: false, value: node.value as T });
  };
  const enqueue = (close: boolean, value?: unknown) => {
    const result = queue.then(() => step(close, value));
    queue = result.catch(() => {});
    return result;
  };
  const iterator: AsyncIterableIterator<T> = harden({
    next: () => enqueue(false),
    return: (value?: unknown) => enqueue(true, value) as Promise<IteratorResult<T>>,
    throw: async (error?: unknown) => {
      await enqueue(true).catch(() => {});
      throw error;
    },
    [Symbol.asyncIterator]: () => iterator,
  });
  return iterator;
};
harden(iterateStreamReader);

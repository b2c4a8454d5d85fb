// Reading what a daemon `follow*` method returns (followMessages,
// followNameChanges, followLocatorNameChanges), whatever the generation:
//   - February and May hand out a far AsyncIterator (`next`, `return`,
//     `throw`; ../shared/spec/endo-guest-api.md §5.6);
//   - August hands out an exo-stream PassableReader whose only reading
//     method is `stream(synHead)`, a pair of promise chains
//     (../shared/spec/endo-guest-api-next.md §3.2).
// The reader is picked by the object's shape, not by a dialect name, so
// intermediate builds work too (§9). Both kinds become the same local
// async iterator, with two promises the daemon's own helpers do not make:
//   - bounded: at most one value is asked of the daemon at a time, and
//     nothing is read ahead; reads the caller overlaps run one after the
//     other;
//   - closing never waits for the daemon: return() settles at once, and so
//     does a read still pending, because on the daemon a close only takes
//     effect after the next value arrives (addendum 2).
import { E } from '@endo/far';
import { sendTo } from './near-call.js';
import { q } from '@endo/errors';
import { makePromiseKit } from '@endo/promise-kit';
import { isRecord } from '../is-record.js';

/** A remote reference returned by a follow* method; only E() works on it. */
export type FollowRef = object;

/** The kind of reader the daemon handed out. */
export type FollowReaderKind = 'exo-stream' | 'ref-iterator';

// `any`: the reference is remote and untyped; E() checks nothing.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

/** One way of pulling values: a single read at a time, and a close. */
interface Puller<T> {
  read(): Promise<IteratorResult<T>>;
  /** Tells the daemon to stop; must not wait for its answer. */
  close(value: unknown): void;
}

/**
 * Which reader a follow* result is, by its method names: `stream` is the
 * exo-stream PassableReader, `next` the far AsyncIterator.
 */
export const followReaderKind = async (
  ref: FollowRef | PromiseLike<FollowRef>,
): Promise<FollowReaderKind> => {
  const names = (await E(ref as Far).__getMethodNames__()) as readonly (string | symbol)[];
  if (names.includes('stream')) return 'exo-stream';
  if (names.includes('next')) return 'ref-iterator';
  throw Error(
    `Cannot read this follow reference: it has neither "stream" nor "next" (it has ${q(names.filter(name => typeof name === 'string'))})`,
  );
};
harden(followReaderKind);

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === 'object' || typeof value === 'function') &&
  value !== null &&
  typeof (value as { then?: unknown }).then === 'function';

/** A record that is no promise (a thenable would be adopted when awaited). */
const isPlainRecord = (value: unknown): value is Record<string, unknown> => isRecord(value) && !isThenable(value);

/**
 * An acknowledgement node must be a record `{ value, promise }` (value may
 * be left out when undefined) whose promise is null (the end) or a promise
 * for the next node. Anything else is refused rather than guessed at.
 */
const readAckNode = (node: unknown): { value: unknown; promise: PromiseLike<unknown> | null } => {
  const keys = isPlainRecord(node) ? Object.keys(node) : [];
  if (
    !isPlainRecord(node) ||
    !('promise' in node) ||
    keys.some(key => key !== 'value' && key !== 'promise') ||
    (node.promise !== null && !isThenable(node.promise))
  ) {
    throw Error(
      `The daemon's stream reader sent a malformed acknowledgement ${q(node)}: expected a record {value, promise} whose promise is null or a promise`,
    );
  }
  return { value: node.value, promise: node.promise as PromiseLike<unknown> | null };
};

/**
 * The initiator side of the exo-stream protocol with no buffer: the first
 * read calls `stream(syn0)`; each read resolves the current syn node with
 * `{ value: undefined, promise: nextSyn }` and awaits the current ack
 * node; an ack whose promise is null ends the stream; a close resolves the
 * current syn with `{ value, promise: null }`.
 */
const makeStreamPuller = <T>(ref: FollowRef | PromiseLike<FollowRef>): Puller<T> => {
  let resolveSyn: ((node: unknown) => void) | undefined;
  let ack: PromiseLike<unknown> | undefined;
  let ended = false;
  return {
    read: async () => {
      if (ended) return harden({ done: true, value: undefined }) as IteratorResult<T>;
      if (resolveSyn === undefined) {
        const syn0 = makePromiseKit<unknown>();
        resolveSyn = syn0.resolve;
        ack = E(ref as Far).stream(syn0.promise) as Promise<unknown>;
      }
      const nextSyn = makePromiseKit<unknown>();
      resolveSyn(harden({ value: undefined, promise: nextSyn.promise }));
      resolveSyn = nextSyn.resolve;
      try {
        const node = readAckNode(await ack);
        if (node.promise === null) {
          ended = true;
          return harden({ done: true, value: node.value }) as IteratorResult<T>;
        }
        ack = node.promise;
        return harden({ done: false, value: node.value }) as IteratorResult<T>;
      } catch (error) {
        // A broken chain cannot be resumed; tell the responder to stop.
        ended = true;
        resolveSyn(harden({ value: undefined, promise: null }));
        throw error;
      }
    },
    close: value => {
      if (ended || resolveSyn === undefined) {
        ended = true;
        return;
      }
      ended = true;
      resolveSyn(harden({ value, promise: null }));
      // The final acknowledgement (or a rejection) comes when the daemon
      // gets round to it; nobody waits for it.
      Promise.resolve(ack).catch(() => {});
    },
  };
};

/** The far AsyncIterator: one `next()` (no arguments: its guard) per read. */
const makeRefPuller = <T>(ref: FollowRef | PromiseLike<FollowRef>): Puller<T> => {
  let started = false;
  return {
    read: async () => {
      started = true;
      const result: unknown = await sendTo(ref, 'next', []);
      if (!isPlainRecord(result) || typeof result.done !== 'boolean') {
        throw Error(
          `The daemon's iterator gave a malformed result ${q(result)}: expected a record {value, done}`,
        );
      }
      return result as unknown as IteratorResult<T>;
    },
    close: value => {
      // An iterator never read has not started its generator: nothing to end.
      if (started) Promise.resolve(E(ref as Far).return(value)).catch(() => {});
    },
  };
};

/**
 * A local async iterator over a follow* result (the reference or a promise
 * for it, e.g. an unawaited `E(powers).followMessages()`). The reader is
 * picked at the first read; nothing is pulled before that.
 */
export const makeFollowReader = <T = unknown>(
  ref: FollowRef | PromiseLike<FollowRef>,
): AsyncIterableIterator<T> => {
  let puller: Promise<Puller<T>> | undefined;
  const providePuller = () => {
    if (puller === undefined) {
      puller = followReaderKind(ref).then(kind =>
        kind === 'exo-stream' ? makeStreamPuller<T>(ref) : makeRefPuller<T>(ref),
      );
    }
    return puller;
  };
  let closed = false;
  const whenClosed = makePromiseKit<IteratorResult<T>>();
  // Reads run one at a time: each waits for the one before it.
  let previous: Promise<unknown> = Promise.resolve();

  const close = (value: unknown) => {
    if (!closed) {
      closed = true;
      whenClosed.resolve(harden({ done: true, value: undefined }) as IteratorResult<T>);
      if (puller !== undefined) {
        puller.then(p => p.close(value), () => {});
      }
    }
    return harden({ done: true, value }) as IteratorResult<T>;
  };

  const iterator: AsyncIterableIterator<T> = harden({
    next: () => {
      if (closed) return whenClosed.promise;
      const result = previous.then(async () => {
        if (closed) return whenClosed.promise;
        const p = await providePuller();
        return closed ? whenClosed.promise : p.read();
      });
      previous = result.catch(() => {});
      return Promise.race([result, whenClosed.promise]);
    },
    return: async (value?: unknown) => close(value),
    throw: async (error?: unknown) => {
      close(undefined);
      throw error;
    },
    [Symbol.asyncIterator]: () => iterator,
  });
  return iterator;
};
harden(makeFollowReader);

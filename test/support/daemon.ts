// Test helpers for the local daemon (src/local-daemon), for every test
// that needs an Endo daemon:
//
//   makeLocalDaemon(options?)   the in-process daemon; `await daemon.host`
//                               is the root host as a far presence. Its
//                               dialect defaults to env FAE_TEST_DIALECT
//                               ('feb' | 'may' | 'aug'; feb when unset).
//   dialect, specialNames       that dialect, and its special names by role
//                               (specialNames.host is 'HOST' or '@host', ...).
//   follow(ref)                 a local async iterator over any follow* result
//                               (iterator reference or August stream reader).
//   followInbox(powers)         follow(E(powers).followMessages()).
//   nextMessage(powers, predicate?, timeoutMs?)
//                               follows a mailbox (replay, then new mail) and
//                               resolves to the first record that matches;
//                               rejects after timeoutMs (default 5000).
//   messageText(record)         the text of a package record: strings
//                               interleaved with "@edgeName", as fae renders it.
//   fromSelf(powers)            a predicate that is true for messages NOT sent
//                               by `powers` itself (skips own copies).
//   capletUrl(name)             the file: URL of a compiled fixture caplet,
//                               dist/test/fixtures/<name>.js.
//
// `powers` is anything E() works on that has the guest/host mail methods:
// a host presence, a guest presence, or a promise for one.
import { E } from '@endo/far';
import { makeRefIterator } from '../../src/daemon/ref-iterator.js';
import { formulaIdOf, specialNames as specialNamesOf, type Dialect } from '../../src/daemon/dialect.js';
import { makeLocalDaemon as makeDaemon, type LocalDaemonOptions } from '../../src/local-daemon/index.js';
import { iterateStreamReader } from './stream-reader.js';

export type { LocalDaemon, Presence } from '../../src/local-daemon/index.js';
export { makeRefIterator, iterateStreamReader };

const dialectFromEnv = (): Dialect => {
  const named = process.env.FAE_TEST_DIALECT ?? 'feb';
  if (named !== 'feb' && named !== 'may' && named !== 'aug') {
    throw Error(`FAE_TEST_DIALECT must be feb, may or aug, not ${JSON.stringify(named)}`);
  }
  return named;
};

/** The dialect the tests run under (env FAE_TEST_DIALECT, feb when unset). */
export const dialect: Dialect = dialectFromEnv();
/** The special names of that dialect, by role. */
export const specialNames = specialNamesOf(dialect);

export const makeLocalDaemon = (options: LocalDaemonOptions = {}) => makeDaemon({ dialect, ...options });

/** The fields of a message record the helpers read (spec §5). */
export interface MessageRecord {
  readonly number: bigint;
  readonly type: string;
  readonly from: string;
  readonly to: string;
  readonly messageId: string;
  readonly date: string;
  readonly replyTo?: string;
  readonly strings?: readonly string[];
  readonly names?: readonly string[];
  readonly ids?: readonly string[];
  readonly description?: string;
  readonly dismissed: Promise<void>;
  readonly dismisser: object;
}

// `any`: powers are remote references of the daemon's shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

/**
 * Reads any follow* result: the shape decides (a `stream` method means an
 * August reader), as the spec's recipe says; nothing is pulled before the
 * first next().
 */
export const follow = <T>(ref: unknown): AsyncIterableIterator<T> => {
  const inner = (async () => {
    const methods = (await E(ref as Far).__getMethodNames__()) as string[];
    return methods.includes('stream') ? iterateStreamReader<T>(ref) : makeRefIterator<T>(ref as object);
  })();
  const iterator: AsyncIterableIterator<T> = harden({
    next: async () => (await inner).next(),
    return: async (value?: unknown) => (await inner).return?.(value) ?? harden({ done: true, value }),
    throw: async (error?: unknown) => {
      const it = await inner;
      if (it.throw === undefined) throw error;
      return it.throw(error);
    },
    [Symbol.asyncIterator]: () => iterator,
  });
  return iterator;
};

export const followInbox = (powers: unknown): AsyncIterableIterator<MessageRecord> =>
  follow<MessageRecord>(E(powers as Far).followMessages());

export const nextMessage = async (
  powers: unknown,
  predicate: (record: MessageRecord) => boolean | Promise<boolean> = () => true,
  timeoutMs = 5000,
): Promise<MessageRecord> => {
  const inbox = followInbox(powers);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Error(`No matching message within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  const search = async () => {
    for (;;) {
      const { value, done } = await inbox.next();
      if (done) throw Error('The message iterator ended');
      if (await predicate(value)) return value;
    }
  };
  try {
    return await Promise.race([search(), timeout]);
  } finally {
    clearTimeout(timer);
    // Ends the far generator; ignore a connection that is already gone.
    inbox.return?.().catch(() => {});
  }
};

export const messageText = (record: MessageRecord): string => {
  const strings = record.strings ?? [];
  const names = record.names ?? [];
  if (record.type === 'request') return record.description ?? '';
  const parts: string[] = [];
  strings.forEach((text, index) => {
    parts.push(text);
    if (index < names.length) parts.push(`@${names[index]}`);
  });
  for (const name of names.slice(strings.length)) parts.push(`@${name}`);
  return parts.join('');
};

export const fromSelf = (powers: unknown) => {
  const selfId = E(powers as Far).identify(specialNames.self) as Promise<string>;
  // `from` is a raw id in February and a locator later.
  return async (record: MessageRecord) => formulaIdOf(record.from) !== (await selfId);
};

export const capletUrl = (name: string): string =>
  new URL(`../fixtures/${name}.js`, import.meta.url).href;

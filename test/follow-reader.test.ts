// makeFollowReader (src/daemon/follow-reader.ts): one local async iterator
// over either reader a follow* method hands out. The exo-stream side is
// checked against a hand-written Far reader that plays the daemon's part
// of the syn/ack protocol (../shared/spec/endo-guest-api-next.md §3.2),
// the far-iterator side against the local daemon.
import test from 'ava';
import { E, Far } from '@endo/far';
import { makePromiseKit } from '@endo/promise-kit';
import { followReaderKind, makeFollowReader } from '../src/daemon/follow-reader.js';
import { makeLocalDaemon } from './support/daemon.js';
import { specialNames } from '../src/daemon/dialect.js';

// `any`: daemon objects are remote presences.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

interface SynNode {
  readonly value: unknown;
  readonly promise: Promise<SynNode> | null;
}

/**
 * A PassableReader as the August daemon makes it, with buffer 0: it waits
 * for each syn node before pulling the next value from `source`, and
 * records what it saw. `source` returns the ack node to send for pull
 * number i (by default `{ value, promise: next }`), or undefined to stop
 * answering.
 */
const makeFarStreamReader = (values: readonly unknown[], returnValue: unknown = 'end') => {
  const seen: string[] = [];
  let pulls = 0;
  const reader = Far('PassableReader', {
    stream: (synHead: Promise<SynNode>) => {
      seen.push('stream');
      const ackHead = makePromiseKit<unknown>();
      const pump = async () => {
        let syn: Promise<SynNode> = synHead;
        let resolveAck = ackHead.resolve;
        for (;;) {
          const node = await syn;
          if (node.promise === null) {
            seen.push(`close ${String(node.value)}`);
            resolveAck(harden({ value: node.value, promise: null }));
            return;
          }
          if (pulls >= values.length) {
            resolveAck(harden({ value: returnValue, promise: null }));
            return;
          }
          const next = makePromiseKit<unknown>();
          resolveAck(harden({ value: values[pulls], promise: next.promise }));
          pulls += 1;
          resolveAck = next.resolve;
          syn = node.promise;
        }
      };
      void pump();
      return ackHead.promise;
    },
    readPattern: () => undefined,
    readReturnPattern: () => undefined,
  });
  return { reader, seen, pulls: () => pulls };
};

/** A reader whose ack chain is whatever `ack` is: for malformed answers. */
const makeRawStreamReader = (ack: (syn: Promise<SynNode>) => unknown) =>
  Far('PassableReader', { stream: ack, readPattern: () => undefined });

test('an exo-stream reader yields its values in order, one pull per read, then ends', async t => {
  const { reader, seen, pulls } = makeFarStreamReader(['a', 'b', 'c']);
  t.is(await followReaderKind(reader), 'exo-stream');
  const iterator = makeFollowReader<string>(Promise.resolve(reader));
  t.is(iterator[Symbol.asyncIterator](), iterator);
  t.true(Object.isFrozen(iterator));
  // Nothing is asked of the daemon before the first read.
  t.deepEqual(seen, []);
  t.deepEqual(await iterator.next(), { done: false, value: 'a' });
  t.is(pulls(), 1);
  t.deepEqual(await iterator.next(), { done: false, value: 'b' });
  // Reading is bounded: the daemon has been asked for exactly what was read.
  t.is(pulls(), 2);
  t.deepEqual(await iterator.next(), { done: false, value: 'c' });
  t.deepEqual(await iterator.next(), { done: true, value: 'end' });
  t.deepEqual(await iterator.next(), { done: true, value: undefined });
  t.deepEqual(seen, ['stream']);
});

test('overlapping reads are served one after the other, in order', async t => {
  const { reader, pulls } = makeFarStreamReader([1, 2, 3]);
  const iterator = makeFollowReader<number>(reader);
  const results = await Promise.all([iterator.next(), iterator.next(), iterator.next()]);
  t.deepEqual(results.map(r => r.value), [1, 2, 3]);
  t.is(pulls(), 3);
});

test('closing an exo-stream reader settles at once and tells the daemon with promise: null', async t => {
  const { reader, seen } = makeFarStreamReader(['a', 'b']);
  const iterator = makeFollowReader<string>(reader);
  t.deepEqual(await iterator.next(), { done: false, value: 'a' });
  t.deepEqual(await iterator.return?.('bye'), { done: true, value: 'bye' });
  t.deepEqual(await iterator.next(), { done: true, value: undefined });
  // The daemon sees the close on the syn chain.
  await new Promise(resolve => setTimeout(resolve, 0));
  t.deepEqual(seen, ['stream', 'close bye']);
});

test('closing does not wait for a daemon that never answers the pending read', async t => {
  const closes = makePromiseKit<unknown>();
  // Answers the first syn, then never acknowledges again but watches for the close.
  const reader = makeRawStreamReader(async syn0 => {
    const first = await syn0;
    const stalled = makePromiseKit<unknown>();
    void (async () => {
      // Walk the syn chain to its last node, whichever read it follows.
      let node = await (first.promise as Promise<SynNode>);
      while (node.promise !== null) {
        node = await node.promise;
      }
      closes.resolve(node);
    })();
    return harden({ value: 'first', promise: stalled.promise });
  });
  const iterator = makeFollowReader<string>(reader);
  t.deepEqual(await iterator.next(), { done: false, value: 'first' });
  const pending = iterator.next();
  t.deepEqual(await iterator.return?.(), { done: true, value: undefined });
  t.deepEqual(await pending, { done: true, value: undefined });
  t.deepEqual(await closes.promise, { value: undefined, promise: null });
});

const malformed: [string, unknown][] = [
  ['a string', 'hello'],
  ['null', null],
  ['a record without promise', { value: 1 }],
  ['a record with an extra field', { value: 1, promise: null, done: false }],
  ['a record whose promise is a number', { value: 1, promise: 5 }],
  ['an array', [1, null]],
];
for (const [label, node] of malformed) {
  test(`an acknowledgement that is ${label} is refused with a clear error`, async t => {
    const reader = makeRawStreamReader(() => harden(node));
    const iterator = makeFollowReader(reader);
    await t.throwsAsync(iterator.next(), {
      message: /^The daemon's stream reader sent a malformed acknowledgement .*: expected a record \{value, promise\} whose promise is null or a promise$/,
    });
    // The stream is over after a broken chain.
    t.deepEqual(await iterator.next(), { done: true, value: undefined });
  });
}

test('a malformed second acknowledgement is refused too', async t => {
  const reader = makeRawStreamReader(() =>
    harden({ value: 'ok', promise: Promise.resolve(harden({ value: 'bad', promise: 'x' })) }),
  );
  const iterator = makeFollowReader(reader);
  t.deepEqual(await iterator.next(), { done: false, value: 'ok' });
  await t.throwsAsync(iterator.next(), { message: /malformed acknowledgement \{"promise":"x","value":"bad"\}/ });
});

test('a rejected acknowledgement rejects the read', async t => {
  const reader = makeRawStreamReader(() => Promise.reject(Error('reader broke')));
  const iterator = makeFollowReader(reader);
  await t.throwsAsync(iterator.next(), { message: 'reader broke' });
});

test('a reference that is neither reader is refused, naming its methods', async t => {
  const odd = Far('Odd', { read: () => 1 });
  const iterator = makeFollowReader(odd);
  await t.throwsAsync(iterator.next(), {
    message: /^Cannot read this follow reference: it has neither "stream" nor "next" \(it has \[.*"read".*\]\)$/,
  });
});

const kinds = { feb: 'ref-iterator', may: 'ref-iterator', aug: 'exo-stream' } as const;
for (const dialect of ['feb', 'may', 'aug'] as const) {
  test(`${dialect}: the daemon's followMessages is read as ${kinds[dialect]}, and closed without waiting`, async t => {
    const daemon = makeLocalDaemon({ dialect });
    t.teardown(() => daemon.stop());
    const host: Far = await daemon.host;
    await E(host).send(specialNames(dialect).self, ['note'], [], []);
    const ref = E(host).followMessages();
    t.is(await followReaderKind(ref), kinds[dialect]);
    const iterator = makeFollowReader<{ number: bigint; strings: string[] }>(ref);
    const first = await iterator.next();
    t.deepEqual([first.value.number, first.value.strings], [0n, ['note']]);
    t.is(daemon.openFollowers(), 1);
    // Nothing more is in the inbox: this read waits for mail that never comes.
    const pending = iterator.next();
    t.deepEqual(await iterator.return?.('bye'), { done: true, value: 'bye' });
    t.deepEqual(await pending, { done: true, value: undefined });
    // The daemon ends its side once the next message arrives (addendum 2).
    await E(host).send(specialNames(dialect).self, ['wake'], [], []);
    // A few daemon round trips let it get there; no clock involved.
    for (let trip = 0; trip < 20 && daemon.openFollowers() > 0; trip += 1) {
      await E(host).list();
    }
    t.is(daemon.openFollowers(), 0);
  });
}

// makeRefIterator (spec §5.6) over the local daemon's iterator references,
// which February and May hand out (August: local-daemon-aug.test.ts).
import test from 'ava';
import { E } from '@endo/far';
import { makeLocalDaemon, makeRefIterator } from './support/daemon.js';

// `any`: daemon objects are remote presences.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

test('makeRefIterator forwards calls unchanged and is its own async iterable', async t => {
  const daemon = makeLocalDaemon({ dialect: 'feb' });
  const host: Far = await daemon.host;
  await E(host).send('SELF', ['note'], [], []);
  // A promise for the reference is fine: calls are forwarded through E().
  const iterator = makeRefIterator<{ number: bigint }>(E(host).followMessages());
  t.is(iterator[Symbol.asyncIterator](), iterator);
  t.true(Object.isFrozen(iterator));
  daemon.resetCallCounts();
  t.is((await iterator.next()).value.number, 0n);
  t.is(daemon.callCounts().next, 1);
  // Arguments are forwarded, so the remote guard sees next(undefined) and rejects it.
  await t.throwsAsync(iterator.next(undefined), { message: /accepts at most 0 arguments, not 1/ });
  t.deepEqual(await iterator.return?.('bye'), { done: true, value: 'bye' });
  await t.throwsAsync(iterator.throw?.(Error('thrown')) as Promise<unknown>, { message: 'thrown' });
  await daemon.stop();
});

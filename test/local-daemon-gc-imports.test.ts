// The local daemon's gcImports option: off, as in the real daemon, CapTP
// holds every export for the connection's life; on, an export the other
// side dropped is released.
import test from 'ava';
import { E, Far } from '@endo/far';
import { makeConnection } from '../src/local-daemon/workers/connection.js';
import { canCollectGarbage, releaseGarbage } from './support/garbage.js';
import { formulaIdOf } from '../src/daemon/dialect.js';
import { makeLocalDaemon, nextMessage, specialNames as N, type MessageRecord } from './support/daemon.js';

// `any`: daemon objects are remote presences.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

test('with gcImports the daemon still carries mail both ways', async t => {
  const daemon = makeLocalDaemon({ gcImports: true });
  const host: Far = await daemon.host;
  const guest: Far = await E(host).provideGuest('fae', { agentName: 'profile-for-fae' });
  const guestSelf = await E(guest).identify(N.self);
  await E(host).send('fae', ['Hello?'], [], []);
  const question: MessageRecord = await nextMessage(guest, record => record.strings?.[0] === 'Hello?');
  await E(guest).reply(question.number, ['Hello.'], [], []);
  await E(guest).dismiss(question.number);
  const answer: MessageRecord = await nextMessage(host, record => record.strings?.[0] === 'Hello.');
  // `from` is a raw id on February and a locator later.
  t.is(formulaIdOf(answer.from), formulaIdOf(guestSelf) ?? guestSelf);
  await daemon.stop();
});

/**
 * Hands an object across as an argument (an answer would be kept by the
 * answering side whatever the option), lets the receiver drop it, and
 * tells whether the sender still holds it.
 */
const heldAfterDrop = async (gcImports: boolean) => {
  const taker = Far('Taker', { take: (thing: object) => typeof thing });
  const connection = makeConnection('test', Far('Nothing', {}), taker, { gcImports });
  // In a function of its own, so no local of ours keeps the object.
  const handOver = async () => {
    const thing = Far('Thing', {});
    await E(connection.farBootstrap as Promise<Far>).take(thing);
    return new WeakRef(thing);
  };
  const given = await handOver();
  await releaseGarbage();
  const held = given.deref() !== undefined;
  connection.abort(Error('done'));
  return held;
};

test('without gcImports an export outlives the presence; with it, it is released', async t => {
  if (!canCollectGarbage) {
    t.pass('V8 refused to expose gc');
    return;
  }
  t.true(await heldAfterDrop(false));
  t.false(await heldAfterDrop(true));
});

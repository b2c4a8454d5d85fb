// The August dialect of the local daemon (next spec §3.2, §3.4, §4): the
// syn/ack stream reader of every follow* method, edits with `done`,
// message history, lookupByLocator and typed name changes.
import test from 'ava';
import { E } from '@endo/far';
import { makePromiseKit } from '@endo/promise-kit';
import { follow, iterateStreamReader, makeLocalDaemon, type MessageRecord } from './support/daemon.js';

// `any`: daemon objects are remote presences.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

const setup = async () => {
  const daemon = makeLocalDaemon({ dialect: 'aug' });
  const host: Far = await daemon.host;
  const guest: Far = await E(host).provideGuest('fae', { agentName: 'profile-for-fae' });
  return { daemon, host, guest };
};

interface Ack {
  readonly value: unknown;
  readonly promise: Promise<Ack> | null;
}

test('follow* methods return a PassableReader that pulls only after each syn', async t => {
  const { daemon, host, guest } = await setup();
  const reader = await E(guest).followMessages();
  t.deepEqual([...(await E(reader).__getMethodNames__())].sort(), [
    '__getInterfaceGuard__', '__getMethodNames__', 'readPattern', 'readReturnPattern', 'stream',
  ]);
  await t.throwsAsync(E(reader).next(), {
    message: /^target has no method "next", has \["__getInterfaceGuard__","__getMethodNames__","readPattern","readReturnPattern","stream"\]/,
  });
  t.is(await E(reader).readPattern(), undefined);
  await E(host).send('fae', ['one'], [], []);
  await E(host).send('fae', ['two'], [], []);

  daemon.resetCallCounts();
  const syn0 = makePromiseKit<unknown>();
  const ack0 = E(reader).stream(syn0.promise) as Promise<Ack>;
  // Nothing is pulled before the first syn.
  let settled = false;
  void ack0.then(() => {
    settled = true;
  });
  await E(guest).list();
  t.false(settled);
  const syn1 = makePromiseKit<unknown>();
  syn0.resolve(harden({ value: undefined, promise: syn1.promise }));
  const first = await ack0;
  t.deepEqual((first.value as MessageRecord).strings, ['one']);
  const syn2 = makePromiseKit<unknown>();
  syn1.resolve(harden({ value: undefined, promise: syn2.promise }));
  const second = await (first.promise as Promise<Ack>);
  t.deepEqual((second.value as MessageRecord).strings, ['two']);
  // Closing: a syn with promise null ends it with a last ack of promise null.
  syn2.resolve(harden({ value: 'bye', promise: null }));
  t.deepEqual(await second.promise, { value: 'bye', promise: null });
  t.is(daemon.callCounts().stream, 1);

  // Name changes come the same way, and August's adds carry the formula type.
  const names = iterateStreamReader<{ add?: string; type?: string; value?: { id: string } }>(
    await E(guest).followNameChanges(),
  );
  const agent = (await names.next()).value;
  t.like(agent, { add: '@agent', type: 'guest' });
  t.is(agent.value?.id, await E(guest).identify('@agent'));
  await names.return?.();
  await daemon.stop();
});

test('editMessage: sender and packages only; the same number re-published in both inboxes', async t => {
  const { daemon, host, guest } = await setup();
  await E(guest).send('@host', ['placeholder'], [], []);
  const hostInbox = follow<MessageRecord>(E(host).followMessages());
  const guestInbox = follow<MessageRecord>(E(guest).followMessages());
  const original = (await hostInbox.next()).value;
  const own = (await guestInbox.next()).value;
  t.true(original.done);
  t.is(own.messageId, original.messageId);

  await E(guest).editMessage(own.number, ['partial'], [], [], { done: false });
  const [editedThere, editedHere] = await Promise.all([hostInbox.next(), guestInbox.next()]);
  t.is(editedThere.value.number, original.number);
  t.deepEqual(editedThere.value.strings, ['partial']);
  t.false(editedThere.value.done);
  t.is(editedHere.value.number, own.number);
  t.not(editedThere.value.date, undefined);
  await E(guest).editMessage(own.number, ['final'], [], []);
  t.like((await hostInbox.next()).value, { number: original.number, strings: ['final'], done: true });

  const history = await E(host).messageHistory(original.number);
  t.deepEqual(history.map((revision: { done: boolean }) => revision.done), [true, false, true]);
  t.deepEqual(history.map((revision: { envelope: MessageRecord }) => revision.envelope.strings), [
    ['placeholder'], ['partial'], ['final'],
  ]);
  t.is(history[2].timestamp, Date.parse(history[2].date));

  await t.throwsAsync(E(host).editMessage(original.number, ['x'], [], []), {
    message: `Only the original sender may edit message "[${original.number}n]"`,
  });
  await t.throwsAsync(E(guest).editMessage(99n, ['x'], [], []), { message: 'No such message with number "[99n]"' });

  // The recipient dismissed it: the sender's copy changes, then the call fails.
  await E(host).dismiss(original.number);
  await t.throwsAsync(E(guest).editMessage(own.number, ['late'], [], []), {
    message: `No message with id ${JSON.stringify(original.messageId)} from sender`,
  });
  const [ownNow] = (await E(guest).listMessages()) as MessageRecord[];
  t.deepEqual(ownNow.strings, ['late']);

  // History lives in memory only.
  await daemon.restart();
  t.deepEqual(await E(guest).messageHistory(own.number), []);
  await daemon.stop();
});

test('lookupByLocator takes path locators; locators of the other syntax fail', async t => {
  const { daemon, guest } = await setup();
  await E(guest).storeValue('v', 'value');
  const locator: string = await E(guest).locate('value');
  t.regex(locator, /^endo:\/\/[0-9a-f]{64}\/[0-9a-f]{64}\?type=marshal$/);
  t.is(await E(guest).lookupByLocator(locator), 'v');
  const [number, node] = (await E(guest).identify('value')).split(':');
  const mayStyle = `endo://${node}/?id=${number}&type=marshal`;
  await t.throwsAsync(E(guest).lookupByLocator(mayStyle), {
    message: `Invalid locator ${JSON.stringify(mayStyle)}: Missing formula number.`,
  });
  await daemon.stop();
});

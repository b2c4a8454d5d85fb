// The daemon adapter (src/daemon/adapter.ts) on a guest of the local
// daemon: own id and own messages (with locators of both syntaxes, hinted
// or not), a stable id per sender, sender names, normalized records,
// send in either spelling of the host's name, replyTo, mail-hub paths.
import test from 'ava';
import { E } from '@endo/far';
import { makeDaemonAdapter } from '../src/daemon/adapter.js';
import { makeLocalDaemon, nextMessage } from './support/daemon.js';

// `any`: daemon objects are remote presences.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

const withGuest = async () => {
  const daemon = makeLocalDaemon();
  const host: Far = await daemon.host;
  await E(host).provideGuest('alice', { agentName: 'alice-agent' });
  const guest: Far = await E(host).lookup('alice-agent');
  const adapter = await makeDaemonAdapter(guest);
  return { daemon, host, guest, adapter };
};

test('own messages are recognised by raw id and by locators of either syntax, with hints', async t => {
  const { daemon, adapter } = await withGuest();
  t.teardown(() => daemon.stop());
  const selfId = adapter.selfId ?? '';
  t.regex(selfId, /^[0-9a-f]+:[0-9a-f]+$/);
  const [number, node] = selfId.split(':');
  t.true(adapter.isOwnMessage({ from: selfId }));
  for (const from of [
    `endo://${node}/?id=${number}&type=handle`,
    `endo://${node}/?id=${number}&type=handle&at=tcp%3A127.0.0.1%3A8940`,
    `endo://${node}/${number}?type=handle`,
    `endo://${node}/${number}@tcp%3A127.0.0.1%3A8940@other?type=guest`,
  ]) {
    t.true(adapter.isOwnMessage({ from }), from);
    t.is(adapter.senderIdOf({ from }), selfId);
  }
  const other = `${'c'.repeat(number.length)}:${node}`;
  t.false(adapter.isOwnMessage({ from: other }));
  t.false(adapter.isOwnMessage({ from: `endo://${node}/${'c'.repeat(number.length)}?type=handle` }));
  t.false(adapter.isOwnMessage({ from: 'not an id' }));
});

test('messages come normalized, with the sender as a raw id and its names', async t => {
  const { daemon, host, adapter } = await withGuest();
  t.teardown(() => daemon.stop());
  await E(host).send('alice', ['hello'], [], []);
  const reader = adapter.followMessages();
  const { value: first } = await reader.next();
  await reader.return?.();
  t.is(first.number, 0n);
  t.true(first.done);
  t.is(first.replyTo, undefined);
  t.is(typeof first.messageId, 'string');
  t.false(adapter.isOwnMessage(first));
  const hostSelf = await E(host).identify(adapter.names.self);
  t.is(first.senderId, hostSelf);
  t.deepEqual(await adapter.senderNames(first.from), [adapter.names.host]);
  t.deepEqual(
    (await adapter.listMessages()).map(m => [m.number, m.senderId, m.done]),
    [[0n, hostSelf, true]],
  );
});

test('send takes the host in either spelling; a reply carries replyTo', async t => {
  const { daemon, host, guest, adapter } = await withGuest();
  t.teardown(() => daemon.stop());
  await E(host).send('alice', ['question'], [], []);
  const hostSelf = await E(host).identify(adapter.names.self);
  const notFromHost = (m: { from: string }) => adapter.senderIdOf(m) !== hostSelf;
  for (const spelling of ['HOST', '@host']) {
    await adapter.send(spelling, [`via ${spelling}`]);
    t.is(
      (await nextMessage(host, m => notFromHost(m) && m.strings?.[0] === `via ${spelling}`)).strings?.[0],
      `via ${spelling}`,
    );
  }
  const [question] = await E(guest).listMessages();
  await adapter.reply(0n, ['answer']);
  const answer = await nextMessage(host, m => notFromHost(m) && m.strings?.[0] === 'answer');
  t.is(answer.replyTo, question.messageId);
  t.deepEqual(adapter.path(['MAIL', '0', 'x']), [adapter.names.mail, '0', 'x']);
  t.deepEqual(adapter.mailPath(3n, 'tool'), [adapter.names.mail, '3', 'tool']);
});

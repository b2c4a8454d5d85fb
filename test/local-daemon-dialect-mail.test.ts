// Mail in the May and August dialects of the local daemon (next spec §3):
// locators in records, send's fifth argument, reject, the @mail hub.
import test from 'ava';
import { E } from '@endo/far';
import { makeLocalDaemon, type MessageRecord } from './support/daemon.js';

// `any`: daemon objects are remote presences.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

const DIALECTS = ['may', 'aug'] as const;

const setup = async (dialect: (typeof DIALECTS)[number]) => {
  const daemon = makeLocalDaemon({ dialect });
  const host: Far = await daemon.host;
  const guest: Far = await E(host).provideGuest('fae', { agentName: 'profile-for-fae' });
  return { daemon, host, guest };
};

test('records carry hint-free locators; message ids are 64 hex', async t => {
  for (const dialect of DIALECTS) {
    const { daemon, host, guest } = await setup(dialect);
    await E(host).storeValue('gift', 'present');
    await E(host).send('fae', ['here ', ''], ['present'], ['present']);
    const [record] = (await E(guest).listMessages()) as MessageRecord[];
    t.is(record.from, await E(guest).locate('@host'));
    t.is(record.to, await E(host).locate('fae'));
    t.deepEqual(record.ids, [await E(host).locate('present')]);
    t.regex(record.messageId, /^[0-9a-f]{64}$/);
    t.deepEqual(await E(guest).reverseLocate(record.from), ['@host']);
    // The @mail hub: numbers as names, @-fields, raw ids, read-only.
    t.deepEqual(await E(guest).list('@mail'), ['0']);
    t.deepEqual(await E(guest).list('@mail', '0'), [
      '@from', '@to', '@date', '@type', '@message', '@strings', 'present',
    ]);
    t.is(await E(guest).identify('@mail', '0', 'present'), await E(host).identify('present'));
    t.is(await E(guest).lookup(['@mail', '0', 'present']), 'gift');
    await t.throwsAsync(E(guest).remove('@mail', '0'), { message: 'Mailbox directory is read-only' });
    await E(guest).adopt(0n, 'present', 'kept');
    t.is(await E(guest).lookup('kept'), 'gift');
    await daemon.stop();
  }
});

test("send resolves undefined; its fifth argument sets replyTo; reject refuses unknown numbers", async t => {
  for (const dialect of DIALECTS) {
    const { daemon, host, guest } = await setup(dialect);
    t.is(await E(host).send('fae', ['question'], [], []), undefined);
    const [question] = (await E(guest).listMessages()) as MessageRecord[];
    await E(guest).send('@host', ['answer'], [], [], 0n);
    await E(guest).send('@host', ['unrelated'], [], [], 99n);
    const inHost = (await E(host).listMessages()) as MessageRecord[];
    const answer = inHost.find(record => record.strings?.[0] === 'answer') as MessageRecord;
    t.is(answer.replyTo, question.messageId);
    t.false('replyTo' in (inHost.find(record => record.strings?.[0] === 'unrelated') as object));
    await t.throwsAsync(E(guest).reject(7n), { message: 'No such message with number "[7n]"' });
    await t.throwsAsync(E(guest).send('HOST', ['x'], [], []), { message: 'Unknown recipient "HOST"' });
    await t.throwsAsync(E(guest).send('@host', ['x'], ['@from'], ['@self']), {
      message: 'Message name "@from" is reserved',
    });
    await daemon.stop();
  }
});

// Forms and values in the May and August dialects of the local daemon
// (next spec §3.1, §3.3, §5.3): form, submit, sendValue, adopting a value,
// the @mail hub's fields; February has none of them.
import test from 'ava';
import { E } from '@endo/far';
import { M } from '@endo/patterns';
import { makeLocalDaemon, type MessageRecord } from './support/daemon.js';

// `any`: daemon objects are remote presences.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;
/** A form or value record: fields the package type does not declare. */
type FormRecord = MessageRecord & { readonly fields?: unknown; readonly valueId?: string };

const DIALECTS = ['may', 'aug'] as const;

const setup = async (dialect: 'feb' | (typeof DIALECTS)[number]) => {
  const daemon = makeLocalDaemon({ dialect });
  const host: Far = await daemon.host;
  const guest: Far = await E(host).provideGuest('fae', { agentName: 'profile-for-fae' });
  return { daemon, host, guest };
};

const FIELDS = harden([
  { name: 'host', label: 'URL', default: 'http://localhost:11434' },
  { name: 'token', label: 'Token', secret: true },
  { name: 'count', label: 'Count', pattern: M.number() },
]);

test('a form reaches its recipient; submit answers it with a value the sender can read', async t => {
  for (const dialect of DIALECTS) {
    const { daemon, host, guest } = await setup(dialect);
    t.is(await E(guest).form('@host', 'Settings', FIELDS), undefined);
    const [own] = (await E(guest).listMessages()) as FormRecord[];
    const [form] = (await E(host).listMessages()) as FormRecord[];
    t.is(form.type, 'form');
    t.is(form.description, 'Settings');
    t.deepEqual(form.fields, FIELDS);
    t.is(own.messageId, form.messageId);
    t.deepEqual(await E(host).list('@mail', String(form.number)), [
      '@from', '@to', '@date', '@type', '@message', '@description',
    ]);

    await t.throwsAsync(E(host).submit(form.number, { token: 's3cret' }), { message: 'Missing value for field "count"' });
    await t.throwsAsync(E(host).submit(form.number, { token: 's3cret', count: 'three' }), { message: /field "count"/ });
    await E(host).submit(form.number, { token: 's3cret', count: 3 });

    const value = ((await E(guest).listMessages()) as FormRecord[]).find(record => record.type === 'value')!;
    t.is(value.replyTo, form.messageId);
    t.deepEqual(await E(guest).lookupById(value.valueId as string), {
      host: 'http://localhost:11434',
      token: 's3cret',
      count: 3,
    });
    t.is(await E(guest).identify('@mail', String(value.number), '@value'), value.valueId);
    await t.throwsAsync(E(guest).adopt(value.number, 'other', 'kept'), {
      message: 'Value messages only have a "value" edge, not "other"',
    });
    await E(guest).adopt(value.number, 'value', 'kept');
    t.is(((await E(guest).lookup('kept')) as { token: string }).token, 's3cret');
    // The host keeps its own copy of what it submitted.
    t.true(((await E(host).listMessages()) as FormRecord[]).some(record => record.type === 'value'));
    await daemon.stop();
  }
});

test('submit refuses what is not a form; sendValue answers any message with a named value', async t => {
  for (const dialect of DIALECTS) {
    const { daemon, host, guest } = await setup(dialect);
    await E(guest).send('@host', ['hello'], [], []);
    const [hello] = (await E(host).listMessages()) as FormRecord[];
    await t.throwsAsync(E(host).submit(hello.number, {}), {
      message: `Message "[${hello.number}n]" is not a form (is "package")`,
    });
    await t.throwsAsync(E(host).submit(99n, {}), { message: 'No such message with number "[99n]"' });
    await E(host).storeValue('gift', 'present');
    await E(host).sendValue(hello.number, 'present');
    const value = ((await E(guest).listMessages()) as FormRecord[]).find(record => record.type === 'value')!;
    t.is(value.replyTo, hello.messageId);
    t.is(await E(guest).lookupById(value.valueId as string), 'gift');
    await t.throwsAsync(E(host).sendValue(hello.number, 'nothing'), { message: 'Unknown pet name "nothing"' });
    await daemon.stop();
  }
});

test('February has no forms', async t => {
  const { daemon, guest } = await setup('feb');
  await t.throwsAsync(E(guest).form('HOST', 'Settings', FIELDS), { message: /form/ });
  await daemon.stop();
});

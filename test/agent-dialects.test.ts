// fae on each generation of the daemon (the local daemon's dialects, chosen
// here explicitly, whatever FAE_TEST_DIALECT says): it starts, announces
// itself to its host, answers by reply (with replyTo), and on August
// answers a partial message once, with its final text, and ignores an
// edit that comes after its answer.
import test from 'ava';
import { E } from '@endo/far';
import type { Dialect } from '../src/daemon/dialect.js';
import { specialNames } from '../src/daemon/dialect.js';
import { startFaeInDaemon } from './support/fae-harness.js';
import type { Far } from './support/fae-harness.js';
import { makeScriptedProvider } from './support/scripted-provider.js';
import { messageText } from './support/daemon.js';

const echo = (request: { messages: readonly { content: string }[] }) => ({
  text: `echo ${request.messages.at(-1)?.content}`,
});

/** The host's own sent copy of the message whose first string is `text`. */
const sentCopy = async (host: Far, text: string) => {
  const messages = (await E(host).listMessages()) as { number: bigint; strings?: string[]; messageId: string }[];
  const found = messages.filter(m => m.strings?.[0] === text);
  // The host's inbox holds its own copy only (fae's copy is in fae's inbox).
  if (found.length !== 1) throw Error(`expected one sent copy of ${JSON.stringify(text)}, found ${found.length}`);
  return found[0];
};

for (const dialect of ['feb', 'may', 'aug'] as Dialect[]) {
  const names = specialNames(dialect);
  test(`${dialect}: fae starts, announces itself and answers by reply with replyTo`, async t => {
    const llm = makeScriptedProvider([echo]);
    const { host, nextFromFae, controller, logs, daemon } = await startFaeInDaemon({ provider: llm.provider, dialect });
    t.teardown(() => daemon.stop());
    t.true(messageText(await nextFromFae()).startsWith('Fae agent ready. '));
    t.is((await E(controller).status()).state, 'running');
    t.true(logs.some(line => line.includes(`daemon=${dialect}`)));
    await E(host).send('fae', ['hello'], [], []);
    const answer = await nextFromFae();
    t.is(messageText(answer), `echo Message #1 from ${names.host}: hello`);
    t.is(answer.replyTo, (await sentCopy(host, 'hello')).messageId);
    // Only the host's message reached the model: not the ready message, not the reply.
    t.is(llm.requests.length, 1);
  });
}

test('aug: a partial message is answered once, with its final text', async t => {
  const llm = makeScriptedProvider([{ hang: true }, echo]);
  const { host, nextFromFae, logs, daemon } = await startFaeInDaemon({ provider: llm.provider, dialect: 'aug' });
  t.teardown(() => daemon.stop());
  await nextFromFae();
  // The placeholder looks finished (done is true on first delivery): fae starts on it.
  await E(host).send('fae', ['…'], [], []);
  await llm.whenCalled(1);
  const { number, messageId } = await sentCopy(host, '…');
  await E(host).editMessage(number, ['Hello, wor'], [], [], { done: false });
  await E(host).editMessage(number, ['Hello, world'], [], [], { done: true });
  const answer = await nextFromFae();
  t.is(messageText(answer), 'echo Message #1 from @host: Hello, world');
  t.is(answer.replyTo, messageId);
  // One answer in all: the turn on the placeholder was dropped, with its text.
  t.is(llm.requests.length, 2);
  t.deepEqual(
    llm.requests[1].messages.filter(m => m.role === 'user').map(m => m.content),
    ['Message #1 from @host: Hello, world'],
  );
  t.true(logs.some(line => line.includes('turn-abandoned message=1')));
  const answers = ((await E(host).listMessages()) as { replyTo?: string }[]).filter(m => m.replyTo === messageId);
  t.is(answers.length, 1);
});

test('aug: an edit after the answer starts no second turn', async t => {
  const llm = makeScriptedProvider([echo, echo]);
  const { host, nextFromFae, logs, daemon } = await startFaeInDaemon({
    provider: llm.provider,
    dialect: 'aug',
    // Kept in fae's inbox after the answer, so the sender can still edit it.
    env: { FAE_AUTO_DISMISS: '0' },
  });
  t.teardown(() => daemon.stop());
  await nextFromFae();
  await E(host).send('fae', ['first'], [], []);
  t.is(messageText(await nextFromFae()), 'echo Message #1 from @host: first');
  const { number } = await sentCopy(host, 'first');
  await E(host).editMessage(number, ['first, edited'], [], [], { done: true });
  // Mail after the edit: when it is answered, fae has read the edit.
  await E(host).send('fae', ['second'], [], []);
  t.is(messageText(await nextFromFae()), 'echo Message #3 from @host: second');
  t.is(llm.requests.length, 2);
  t.true(logs.some(line => line.includes('edit-ignored message=1')));
});

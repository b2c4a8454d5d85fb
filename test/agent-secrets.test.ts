// No secret leaves fae: whatever text it mails (a reply, a send, a request's
// description, a rejection's reason, its own plain answer or failure
// notice) reaches the recipient redacted, and a LAL_HOST that carries a
// password or a key in its query never shows them in a notice, an error,
// a log line or status().
import test from 'ava';
import { E } from '@endo/far';
import { createProvider } from '../providers/index.js';
import { startFaeInDaemon } from './support/fae-harness.js';
import { makeScriptedProvider, type RecordedRequest } from './support/scripted-provider.js';
import { messageText, specialNames } from './support/daemon.js';
import { closedLoopbackUrl, startLlmServer, TEST_TOKEN, type LlmKind } from './support/llm-server.js';

const TOKEN = 'sk-test-mailed-secret-2718281828';

/** The number of the message the model is answering, from its heading. */
const answering = (request: RecordedRequest) => {
  const heading = request.messages.filter(m => m.role === 'user').at(-1)?.content ?? '';
  return Number(/^Message #(\d+)/.exec(heading)?.[1]);
};

test('every text fae mails reaches its recipient redacted: reply, send, request and its plain answer', async t => {
  const llm = makeScriptedProvider([
    request => ({
      toolCalls: [
        { name: 'reply', arguments: { messageNumber: answering(request), strings: [`the key is ${TOKEN}`] } },
        { name: 'send', arguments: { recipient: specialNames.host, strings: [`again: ${TOKEN}`] } },
        {
          name: 'request',
          arguments: { recipient: specialNames.host, description: `a key like ${TOKEN}`, responseName: 'key' },
        },
      ],
    }),
    { text: 'done' },
    { text: `plainly: ${TOKEN}` },
  ]);
  const { host, nextFromFae, logs, daemon } = await startFaeInDaemon({
    provider: llm.provider,
    env: { LAL_AUTH_TOKEN: TOKEN },
  });
  await nextFromFae();
  await E(host).send('fae', ['what is the key?'], [], []);
  const mailed = [await nextFromFae(), await nextFromFae(), await nextFromFae()];
  // The three calls run together: their mail may arrive in any order.
  t.deepEqual(
    mailed.map(record => `${record.type}: ${messageText(record)}`).sort(),
    ['package: again: [redacted]', 'package: the key is [redacted]', 'request: a key like [redacted]'],
  );
  await E(host).send('fae', ['say it plainly'], [], []);
  t.is(messageText(await nextFromFae()), 'plainly: [redacted]');
  t.false(logs.some(line => line.includes(TOKEN)));
  await daemon.stop();
});

test('a rejection reason reaches the requester redacted', async t => {
  const llm = makeScriptedProvider([
    request => ({
      toolCalls: [{ name: 'reject', arguments: { messageNumber: answering(request), reason: `${TOKEN} is mine` } }],
    }),
    { text: 'declined' },
  ]);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({
    provider: llm.provider,
    env: { LAL_AUTH_TOKEN: TOKEN },
  });
  await nextFromFae();
  const asked = E(host).request('fae', 'your key, please', 'fae-key');
  await t.throwsAsync(asked, { message: '[redacted] is mine' });
  t.false(await E(host).has('fae-key'));
  await daemon.stop();
});

// LAL_HOST with a key in its query, for a server of each kind: the request
// fails (the key in the query breaks the path), and the failure must not
// show it. (A LAL_HOST with user info is refused before any request:
// lal-host-secrets.test.ts.)
const QUERY_KEY = 'query-secret-14142135';
const hostCases: readonly { readonly kind: LlmKind; readonly host: (url: URL) => string | Promise<string> }[] = [
  { kind: 'openai', host: url => `http://${url.host}${url.pathname}?api-key=${QUERY_KEY}&format=json` },
  { kind: 'openai', host: url => `${url.href}?key=${QUERY_KEY}` },
  // Ollama's client keeps only the origin of its host: one nobody listens on.
  { kind: 'ollama', host: async () => `${await closedLoopbackUrl('ollama')}/?key=${QUERY_KEY}` },
  { kind: 'anthropic', host: url => `${url.href}?key=${QUERY_KEY}` },
];

for (const [index, { kind, host: hostFor }] of hostCases.entries()) {
  test(`${kind} (${index + 1}): LAL_HOST's query key appears in no notice, error, log line or status()`, async t => {
    const server = await startLlmServer(kind);
    t.teardown(() => server.close());
    server.otherwise({ text: 'never used' });
    const env = { LAL_HOST: await hostFor(new URL(server.url)), LAL_AUTH_TOKEN: TEST_TOKEN, LAL_MAX_RETRIES: '0' };
    const secrets = [QUERY_KEY];
    const shows = (text: string) => secrets.filter(secret => text.includes(secret));

    const direct = await t.throwsAsync(createProvider(env).chat([{ role: 'user', content: 'hi' }], []));
    t.deepEqual(shows(direct.message), [], direct.message);
    t.regex(direct.message, /\[redacted\]/);

    const { host, nextFromFae, controller, logs, daemon } = await startFaeInDaemon({
      provider: createProvider(env),
      env,
    });
    await nextFromFae();
    await E(host).send('fae', ['hello'], [], []);
    const notice = messageText(await nextFromFae());
    t.true(notice.startsWith('Sorry, I could not answer your message'), notice);
    t.deepEqual(shows(notice), [], notice);
    t.deepEqual(shows(logs.join('\n')), []);
    t.true(logs.some(line => line.includes('turn-failed')));
    const status = (await E(controller).status()) as { lastError: string };
    t.not(status.lastError, '');
    t.deepEqual(shows(JSON.stringify(status)), []);
    await daemon.stop();
  });
}

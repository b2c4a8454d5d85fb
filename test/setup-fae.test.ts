// setup.ts against the local daemon: fae is provisioned with the settings
// given, starts and says so to the HOST; a second run changes nothing; a
// bad setting stops the script before anything is created.
import test from 'ava';
import { E } from '@endo/far';
import { main, setup } from '../setup.js';
import { messageText, nextMessage, fromSelf, specialNames } from './support/daemon.js';
import { startDaemonWithLlm } from './support/daemon-with-llms.js';

// `any`: the daemon's objects are remote references.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

const start = (t: Parameters<typeof startDaemonWithLlm>[0]) => startDaemonWithLlm(t, 'ollama');

const readyFrom = async (host: Far) => {
  const notOwn = fromSelf(host);
  return nextMessage(host, async record => (await notOwn(record)) && messageText(record).startsWith('Fae agent ready.'));
};

test('setup provisions fae, which starts and tells the HOST it is ready', async t => {
  const { llm, host } = await start(t);
  const report = await setup(host, llm.env({ LAL_MODEL: 'tiny-model' }));
  t.regex(report, /^setup:\n {2}fae: guest created \(powers profile-for-fae\)\n {2}controller-for-fae: fae started with ollama model "tiny-model" at http:\/\/127\.0\.0\.1:\d+\n {2}controller-for-fae: pinned, so fae starts again with the daemon$/);
  t.false(report.includes('sk-'), 'the report never shows a token');
  const ready = await readyFrom(host);
  t.true(messageText(ready).startsWith('Fae agent ready. '));
  t.true(await E(host).has('fae'));
  t.true(await E(host).has('profile-for-fae'));
  t.true(await E(host).has('controller-for-fae'));
  // Pinned: the daemon revives fae when it starts.
  t.is(await E(host).identify(specialNames.pins, 'controller-for-fae'), await E(host).identify('controller-for-fae'));
  const status = await E(E(host).lookup('controller-for-fae')).status();
  t.like(status, { state: 'running', provider: 'ollama', model: 'tiny-model' });
});

test('fae talks to the LLM named by LAL_HOST, with the model from LAL_MODEL', async t => {
  const { llm, host } = await start(t);
  llm.reply({ text: 'Hi from the model' });
  await setup(host, llm.env({ LAL_MODEL: 'tiny-model' }));
  await readyFrom(host);
  await E(host).send('fae', ['Hello fae'], [], []);
  const notOwn = fromSelf(host);
  const answer = await nextMessage(
    host,
    async record => (await notOwn(record)) && messageText(record) === 'Hi from the model',
  );
  t.truthy(answer);
  t.is(llm.chatRequests.length, 1);
  t.is(llm.chatRequests[0].body.model, 'tiny-model');
});

test('running setup again neither fails nor starts a second fae', async t => {
  const { llm, host } = await start(t);
  const env = llm.env();
  await setup(host, env);
  await readyFrom(host);
  const ids = async () =>
    Promise.all(['fae', 'profile-for-fae', 'controller-for-fae'].map(name => E(host).identify(name)));
  const before = await ids();
  const again = await setup(host, env);
  t.is(
    again,
    [
      'setup:',
      '  fae: guest already present, left as it is',
      '  controller-for-fae: already running, left as it is (to change its settings, run "npm run setup-replace" with the new ones)',
      '  controller-for-fae: already pinned',
    ].join('\n'),
  );
  t.deepEqual(await ids(), before);
  const notOwn = fromSelf(host);
  const messages = (await E(host).listMessages()) as Far[];
  const readies = [];
  for (const record of messages) {
    if ((await notOwn(record)) && messageText(record).startsWith('Fae agent ready.')) readies.push(record);
  }
  t.is(readies.length, 1);
});

test('Anthropic without a token is refused before anything is created', async t => {
  const { host } = await start(t);
  await t.throwsAsync(setup(host, { LAL_HOST: 'https://api.anthropic.com', LAL_AUTH_TOKEN: '' }), {
    message:
      'LAL_AUTH_TOKEN is required for Anthropic (LAL_HOST "https://api.anthropic.com"); set it to your API key',
  });
  t.false(await E(host).has('fae'));
  t.false(await E(host).has('controller-for-fae'));
});

test('a malformed setting is refused before anything is created', async t => {
  const { llm, host } = await start(t);
  await t.throwsAsync(setup(host, llm.env({ LAL_MAX_TOKENS: 'lots' })), {
    message: /^LAL_MAX_TOKENS must be a positive whole number, not "lots"/,
  });
  await t.throwsAsync(setup(host, llm.env({ FAE_MAX_ITERATIONS: '-1' })), {
    message: /^FAE_MAX_ITERATIONS must be a positive whole number, not "-1"/,
  });
  t.false(await E(host).has('fae'));
});

test.serial('main(agent) reads the -E settings from process.env, as endo run passes them', async t => {
  const { llm, host } = await start(t);
  const saved = { ...process.env };
  t.teardown(() => {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  });
  Object.assign(process.env, llm.env({ LAL_MODEL: 'from-process-env' }));
  // endo run turns `-E LAL_PROVIDER=$UNSET` into an empty string.
  process.env.LAL_PROVIDER = '';
  const report = await main(host);
  t.regex(report, /fae started with ollama model "from-process-env"/);
  await readyFrom(host);
});

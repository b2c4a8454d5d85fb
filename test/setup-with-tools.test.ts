// setup-with-tools.ts against the local daemon: the example tools are made,
// introduced to fae, moved into its tools/ directory when it starts, and
// called by the model under their schema names.
import test from 'ava';
import { E } from '@endo/far';
import { main, setupWithTools } from '../setup-with-tools.js';
import { setup } from '../setup.js';
import { messageText, nextMessage, fromSelf } from './support/daemon.js';
import { startDaemonWithLlm } from './support/daemon-with-llms.js';

// `any`: the daemon's objects are remote references.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

const TOOL_NAMES = ['greet-tool', 'math-tool', 'timestamp-tool'];

const start = (t: Parameters<typeof startDaemonWithLlm>[0]) => startDaemonWithLlm(t, 'openai');

/** The next message from others that starts with `text` (the ready message says more after its first words). */
const waitFor = async (host: Far, text: string) => {
  const notOwn = fromSelf(host);
  return nextMessage(host, async record => (await notOwn(record)) && messageText(record).startsWith(text));
};

test('setup-with-tools gives fae the three tools under tools/ and fae says it is ready', async t => {
  const { llm, host } = await start(t);
  const report = await setupWithTools(host, llm.env());
  t.true(
    report.startsWith(
      [
        'setup-with-tools:',
        '  greet-tool: created',
        '  math-tool: created',
        '  timestamp-tool: created',
        '  fae: guest created (powers profile-for-fae, introduced to greet-tool, math-tool, timestamp-tool)',
        '  controller-for-fae: fae started with openai model',
      ].join('\n'),
    ),
    report,
  );
  await waitFor(host, 'Fae agent ready.');
  const fae = E(host).lookup('profile-for-fae');
  t.deepEqual([...(await E(fae).list('tools'))].sort(), TOOL_NAMES);
  for (const name of TOOL_NAMES) t.false(await E(fae).has(name), `${name} left the top level`);
});

test("fae's model calls the introduced tools by their schema names", async t => {
  const { llm, host } = await start(t);
  llm
    .reply({
      toolCalls: [
        { name: 'greet', arguments: { name: 'Ada', language: 'french' } },
        { name: 'math', arguments: { operation: 'multiply', a: 6, b: 7 } },
        { name: 'timestamp', arguments: { timezone: 'UTC' } },
      ],
    })
    .reply({ text: 'All three tools answered.' });
  await setupWithTools(host, llm.env());
  await waitFor(host, 'Fae agent ready.');
  await E(host).send('fae', ['Use your tools'], [], []);
  await waitFor(host, 'All three tools answered.');

  const [first, second] = llm.chatRequests;
  const offered = first.body.tools.map((tool: Far) => tool.function.name);
  for (const name of ['greet', 'math', 'timestamp']) t.true(offered.includes(name), name);
  const results = second.body.messages
    .filter((message: Far) => message.role === 'tool')
    .map((message: Far) => String(message.content));
  t.is(results.length, 3);
  t.true(results[0].includes('Bonjour, Ada!'), results[0]);
  t.true(results[1].includes('42'), results[1]);
  t.regex(results[2], /\(UTC\); UTC \d{4}-/);
});

test('running setup-with-tools again neither fails nor duplicates', async t => {
  const { llm, host } = await start(t);
  await setupWithTools(host, llm.env());
  await waitFor(host, 'Fae agent ready.');
  const names = ['fae', 'controller-for-fae', ...TOOL_NAMES];
  const before = await Promise.all(names.map(name => E(host).identify(name)));
  const again = await setupWithTools(host, llm.env());
  t.true(again.includes('fae: guest already present, left as it is'), again);
  t.true(again.includes('greet-tool: already present, left as it is'), again);
  // fae holds the tools it was introduced to: nothing to send it.
  t.false(again.includes('not introduced'), again);
  t.deepEqual(await Promise.all(names.map(name => E(host).identify(name))), before);
  const fae = E(host).lookup('profile-for-fae');
  t.deepEqual([...(await E(fae).list('tools'))].sort(), TOOL_NAMES);
});

test('after a plain setup, setup-with-tools says the tools could not be introduced', async t => {
  const { llm, host } = await start(t);
  await setup(host, llm.env());
  const report = await setupWithTools(host, llm.env());
  t.true(
    report.includes(
      '(so greet-tool, math-tool, timestamp-tool were not introduced to it; send them to fae in a message for it to adopt)',
    ),
    report,
  );
});

test('a bad setting stops setup-with-tools before any tool is made', async t => {
  const { host } = await start(t);
  await t.throwsAsync(setupWithTools(host, { LAL_HOST: 'https://api.anthropic.com' }), {
    message: /^LAL_AUTH_TOKEN is required for Anthropic/,
  });
  for (const name of ['fae', ...TOOL_NAMES]) t.false(await E(host).has(name), name);
});

test.serial('main(agent) reads its settings from process.env', async t => {
  const { llm, host } = await start(t);
  const saved = { ...process.env };
  t.teardown(() => {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  });
  Object.assign(process.env, llm.env({ LAL_MODEL: 'env-model' }));
  const report = await main(host);
  t.regex(report, /fae started with openai model "env-model"/);
  await waitFor(host, 'Fae agent ready.');
});

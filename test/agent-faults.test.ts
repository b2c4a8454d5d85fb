// What fae does when things go wrong around a turn: tools that reject with
// anything at all, a daemon that refuses the ready announcement, huge tool
// results, empty answers, and a model that dismisses the message it is
// still answering. Each test fails without the fix it guards (issue 14).
import test from 'ava';
import { E } from '@endo/far';
import { makeExo } from '@endo/exo';
import { FaeToolInterface } from '../src/tool-kit/fae-tool-interface.js';
import { startFaeInDaemon } from './support/fae-harness.js';
import { makeScriptedProvider, type RecordedRequest } from './support/scripted-provider.js';
import { messageText, specialNames } from './support/daemon.js';
import type { LocalDaemon } from './support/daemon.js';
import { makeToolCaplet } from './support/tool-caplets.js';
import { faultyPowers, makeFaults } from './support/faulty-powers.js';

type Teardown = { teardown(fn: () => Promise<void> | void): void };

const toolResults = (request: RecordedRequest) => request.messages.filter(m => m.role === 'tool').map(m => m.content);

/** A daemon tool `name` whose execute runs `execute`. */
const withTool = (name: string, execute: (args: Record<string, unknown>) => Promise<unknown>) => ({
  introducedNames: { [name]: name },
  prepare: async (_host: unknown, daemon: LocalDaemon) => {
    await makeToolCaplet(daemon, name, () =>
      makeExo(`${name}Tool`, FaeToolInterface, {
        schema: () =>
          harden({
            type: 'function',
            function: { name, description: `the ${name} tool`, parameters: { type: 'object', properties: {} } },
          }),
        execute: async (args: Record<string, unknown>) => execute(args),
        help: () => `the ${name} tool`,
      }),
    );
  },
});

const start = async (t: Teardown, options: Parameters<typeof startFaeInDaemon>[0]) => {
  const started = await startFaeInDaemon(options);
  t.teardown(() => started.daemon.stop());
  return started;
};

const REASONS: Readonly<Record<string, unknown>> = harden({
  record: { code: 'E_BUSY', retryAfter: 5 },
  string: 'the disk is full',
  number: 42,
  undefined,
  error: Error('plain error'),
  nested: { problem: { path: ['a', 'b'], at: 3n } },
});

test('a tool rejecting with a record, a string, a number, undefined or an Error reaches the model readably', async t => {
  const kinds = Object.keys(REASONS);
  const llm = makeScriptedProvider([
    { toolCalls: kinds.map(kind => ({ name: 'flaky', arguments: { kind } })) },
    { text: 'noted' },
  ]);
  const { host, nextFromFae } = await start(t, {
    provider: llm.provider,
    ...withTool('flaky', async args => {
      // Thrown as is: CapTP delivers a non-Error reason as the value itself.
      throw REASONS[String(args.kind)];
    }),
  });
  await nextFromFae();
  await E(host).send('fae', ['try the flaky tool'], [], []);
  t.is(messageText(await nextFromFae()), 'noted');
  t.deepEqual(toolResults(llm.requests[1]), [
    '{error:{code:"E_BUSY",retryAfter:5}}',
    '{error:"the disk is full"}',
    '{error:42}',
    '{error:"the tool failed without saying why (it rejected with undefined)"}',
    '{error:"plain error"}',
    '{error:{problem:{at:3n,path:["a","b"]}}}',
  ]);
});

test('fae serves its mail when the "Fae agent ready." announcement is refused', async t => {
  const faults = makeFaults();
  faults.refuse('send', ([recipient]) => recipient === specialNames.host);
  const llm = makeScriptedProvider([{ text: 'still here' }]);
  const { host, controller, nextFromFae, logs } = await start(t, {
    provider: llm.provider,
    wrapPowers: powers => faultyPowers(powers, faults),
  });
  const status = await E(controller).whenStarted();
  t.is(status.state, 'running');
  t.deepEqual(faults.refused, ['send']);
  t.true(logs.some(line => /startup-step-failed step=announce-ready/.test(line)), logs.join('\n'));
  await E(host).send('fae', ['are you there?'], [], []);
  t.is(messageText(await nextFromFae()), 'still here');
});

test('fae serves its mail when every other startup call is refused', async t => {
  const faults = makeFaults();
  for (const method of ['identify', 'has', 'list', 'makeDirectory', 'send']) faults.refuse(method);
  const llm = makeScriptedProvider([{ text: 'still here' }]);
  const { host, controller, nextFromFae } = await start(t, {
    provider: llm.provider,
    introducedNames: { note: 'note' },
    prepare: async h => E(h).storeValue('a note', 'note'),
    wrapPowers: powers => faultyPowers(powers, faults),
  });
  t.is((await E(controller).whenStarted()).state, 'running');
  await E(host).send('fae', ['are you there?'], [], []);
  t.is(messageText(await nextFromFae()), 'still here');
});

test('a huge tool result is cut to FAE_MAX_TOOL_RESULT_CHARS, keeping its start and end', async t => {
  const huge = `START${'x'.repeat(200_000)}END`;
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'dump', arguments: {} }] },
    { toolCalls: [{ name: 'dump', arguments: {} }] },
    { text: 'done' },
  ]);
  const { host, nextFromFae } = await start(t, {
    provider: llm.provider,
    env: { FAE_MAX_TOOL_RESULT_CHARS: '1000' },
    ...withTool('dump', async () => huge),
  });
  await nextFromFae();
  await E(host).send('fae', ['dump it'], [], []);
  t.is(messageText(await nextFromFae()), 'done');
  const [first, second] = toolResults(llm.requests[2]);
  t.true(first.length < 1100, `${first.length} characters`);
  t.true(first.startsWith('START'));
  t.true(first.endsWith('END'));
  t.regex(first, /\[… 199008 characters omitted …\]/);
  t.is(second, first, 'every later request carries the cut result, not the whole');
});

test('the default cap is 50,000 characters', async t => {
  const llm = makeScriptedProvider([{ toolCalls: [{ name: 'dump', arguments: {} }] }, { text: 'done' }]);
  const { host, nextFromFae } = await start(t, {
    provider: llm.provider,
    ...withTool('dump', async () => 'y'.repeat(5_000_000)),
  });
  await nextFromFae();
  await E(host).send('fae', ['dump it'], [], []);
  await nextFromFae();
  const [result] = toolResults(llm.requests[1]);
  t.true(result.length > 50_000 && result.length < 50_100, `${result.length} characters`);
  t.regex(result, /\[… 4950000 characters omitted …\]/);
});

test('an empty final answer becomes a short notice to the sender', async t => {
  const llm = makeScriptedProvider([{ text: '' }, { text: '  \n' }]);
  const { host, nextFromFae } = await start(t, { provider: llm.provider });
  await nextFromFae();
  await E(host).send('fae', ['say nothing'], [], []);
  t.is(
    messageText(await nextFromFae()),
    'I finished working on your message but have no answer to give (my language model\'s reply was empty). Please ask again, perhaps more specifically. (About "say nothing")',
  );
  await E(host).send('fae', ['say nothing again'], [], []);
  t.regex(messageText(await nextFromFae()), /^I finished working on your message but have no answer.*\(About "say nothing again"\)$/);
});

test('an empty reply or send is refused with an error the model can act on', async t => {
  const llm = makeScriptedProvider([
    {
      toolCalls: [
        { name: 'reply', arguments: { messageNumber: 1, strings: [''] } },
        { name: 'send', arguments: { recipient: 'HOST', strings: [' '] } },
      ],
    },
    { toolCalls: [{ name: 'reply', arguments: { messageNumber: 1, strings: ['Now with words.'] } }] },
    { text: '' },
  ]);
  const { host, nextFromFae } = await start(t, { provider: llm.provider });
  await nextFromFae();
  await E(host).send('fae', ['hello'], [], []);
  t.is(messageText(await nextFromFae()), 'Now with words.');
  const [reply, send] = toolResults(llm.requests[1]);
  t.regex(reply, /^\{error:"reply refused an empty message: put the text to send in strings/);
  t.regex(send, /^\{error:"send refused an empty message/);
  await llm.whenCalled(3);
});

test("fae's closing notice reaches the sender although the model dismissed the message", async t => {
  const dismissing = { toolCalls: [{ name: 'dismiss', arguments: { messageNumber: 1 } }] };
  const llm = makeScriptedProvider([dismissing, dismissing]);
  const { host, fae, nextFromFae } = await start(t, {
    provider: llm.provider,
    env: { FAE_MAX_ITERATIONS: '2' },
  });
  await nextFromFae();
  await E(host).send('fae', ['loop forever'], [], []);
  t.regex(messageText(await nextFromFae()), /^I stopped working on your message "loop forever" after 2 model calls/);
  t.regex(toolResults(llm.requests[1])[0], /Message #1 will be dismissed when you finish this turn/);
  // Dismissed once the turn is over all the same.
  for (let i = 0; i < 50 && (await E(fae).listMessages()).some((m: { number: bigint }) => m.number === 1n); i += 1) {
    // Polling: the dismissal follows the notice by a round trip.
    await new Promise(resolve => setTimeout(resolve, 20));
  }
  t.false((await E(fae).listMessages()).some((m: { number: bigint }) => m.number === 1n));
});

test("when reply is refused, fae's notice goes to the sender by name", async t => {
  const faults = makeFaults();
  faults.refuse('reply');
  const llm = makeScriptedProvider([{ text: 'by another road' }]);
  const { host, nextFromFae } = await start(t, {
    provider: llm.provider,
    wrapPowers: powers => faultyPowers(powers, faults),
  });
  await nextFromFae();
  await E(host).send('fae', ['hello'], [], []);
  t.is(messageText(await nextFromFae()), 'by another road');
  t.deepEqual(faults.refused, ['reply']);
});

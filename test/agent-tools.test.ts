// Scenario tests for fae's tools: adoption, discovery by schema name,
// failures of every kind, timeouts and concurrency.
import test from 'ava';
import { E, Far } from '@endo/far';
import { GUEST_SPECIAL_NAMES, startFaeInDaemon } from './support/fae-harness.js';
import { makeScriptedProvider } from './support/scripted-provider.js';
import type { RecordedRequest } from './support/scripted-provider.js';
import { dialect, messageText, specialNames } from './support/daemon.js';
import type { LocalDaemon } from './support/daemon.js';
import {
  makeFailingTool,
  makeHangingTool,
  makeRendezvousTools,
  makeSequenceTools,
  makeShippedTool,
  makeToolCaplet,
  makeToolWithSchema,
} from './support/tool-caplets.js';

const lastToolResults = (request: RecordedRequest) => {
  const results = [];
  for (let i = request.messages.length - 1; request.messages[i].role === 'tool'; i -= 1) {
    results.unshift(request.messages[i]);
  }
  return results;
};

/** Introduces two in-process tools to fae as `first` and `second`. */
const withToolPair = (first: unknown, second: unknown) => ({
  introducedNames: { first: 'first', second: 'second' },
  prepare: async (_h: unknown, d: LocalDaemon) => {
    await makeToolCaplet(d, 'first', () => first);
    await makeToolCaplet(d, 'second', () => second);
  },
});

test('a mailed tool is adopted and used in the same turn, by its schema name', async t => {
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'adoptTool', arguments: { messageNumber: 1, edgeName: 'greeter', toolName: 'greet-tool' } }] },
    { toolCalls: [{ name: 'greet', arguments: { name: 'Ada', language: 'french' } }] },
    request => ({ text: `The tool said: ${request.messages.at(-1)?.content}` }),
  ]);
  const { host, fae, nextFromFae, daemon } = await startFaeInDaemon({ provider: llm.provider });
  await nextFromFae();
  await makeShippedTool(host, 'greet', 'greet-tool');
  await E(host).send('fae', ['Here is ', ' for you; greet Ada in French.'], ['greeter'], ['greet-tool']);
  const answer = await nextFromFae();
  t.is(messageText(answer), 'The tool said: Bonjour, Ada!');
  t.deepEqual(await E(fae).list('tools'), ['greet-tool']);
  t.false(llm.requests[0].toolNames.includes('greet'));
  t.true(llm.requests[1].toolNames.includes('greet'));
  t.is(llm.requests[0].messages.at(-1)?.content, `Message #1 from ${specialNames.host}: Here is @greeter for you; greet Ada in French.`);
  await daemon.stop();
});

test('introduced tools are moved into tools/ and offered under their schema names', async t => {
  const llm = makeScriptedProvider([{ text: 'ok' }]);
  const { host, fae, nextFromFae, daemon } = await startFaeInDaemon({
    provider: llm.provider,
    introducedNames: { 'greet-tool': 'greet-tool', 'timestamp-tool': 'timestamp-tool', note: 'note' },
    prepare: async h => {
      await makeShippedTool(h, 'greet', 'greet-tool');
      await makeShippedTool(h, 'timestamp', 'timestamp-tool');
      await E(h).storeValue('just data', 'note');
    },
  });
  await nextFromFae();
  t.deepEqual(await E(fae).list('tools'), ['greet-tool', 'timestamp-tool']);
  t.deepEqual(await E(fae).list(), [...GUEST_SPECIAL_NAMES[dialect], 'conversations', 'note', 'tools']);
  await E(host).send('fae', ['hi'], [], []);
  await nextFromFae();
  t.deepEqual(llm.requests[0].toolNames.slice(-2), ['greet', 'timestamp']);
  await daemon.stop();
});

test('startup is not held up by a capability that never answers', async t => {
  const llm = makeScriptedProvider();
  const { nextFromFae, fae, daemon } = await startFaeInDaemon({
    provider: llm.provider,
    env: { FAE_PROBE_TIMEOUT_MS: '50' },
    introducedNames: { silent: 'silent' },
    prepare: async (_h, d) => {
      await makeToolCaplet(d, 'silent', () =>
        Far('Silent', { __getMethodNames__: () => new Promise(() => {}) }),
      );
    },
  });
  t.true(messageText(await nextFromFae()).startsWith('Fae agent ready. '));
  t.deepEqual(await E(fae).list('tools'), []);
  await daemon.stop();
});

test('duplicate schema names keep the first tool and are logged once; a malformed schema is skipped', async t => {
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'greet', arguments: { name: 'Bo' } }] },
    { text: 'first' },
    { text: 'second' },
  ]);
  const { host, nextFromFae, logs, daemon } = await startFaeInDaemon({
    provider: llm.provider,
    introducedNames: { 'a-greet': 'a-greet', 'b-greet': 'b-greet', broken: 'broken' },
    prepare: async (h, d) => {
      await makeShippedTool(h, 'greet', 'a-greet');
      await makeToolCaplet(d, 'b-greet', () =>
        makeToolWithSchema({ type: 'function', function: { name: 'greet', parameters: {} } }, 'impostor'),
      );
      await makeToolCaplet(d, 'broken', () =>
        makeToolWithSchema({ type: 'function', function: { name: 'bad name!' } }),
      );
    },
  });
  await nextFromFae();
  // The broken one is not moved at startup: its schema was checked then.
  await E(host).send('fae', ['greet Bo'], [], []);
  await nextFromFae();
  await E(host).send('fae', ['again'], [], []);
  await nextFromFae();
  const offered = llm.requests[0].toolNames;
  t.is(offered.filter(name => name === 'greet').length, 1);
  t.false(offered.includes('bad name!'));
  t.is(lastToolResults(llm.requests[1])[0].content, 'Hello, Bo!');
  const duplicateLines = logs.filter(line => line.includes('already called'));
  t.is(duplicateLines.length, 1);
  t.true(logs.some(line => line.includes('tool-skipped') && line.includes('broken')));
  await daemon.stop();
});

test('a tool adopted under another pet name is called by its schema name', async t => {
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'adoptTool', arguments: { messageNumber: '1', edgeName: '@clock', toolName: 'timestamp-tool' } }] },
    { toolCalls: [{ name: 'timestamp', arguments: { timezone: 'UTC' } }] },
    { text: 'done' },
  ]);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({ provider: llm.provider });
  await nextFromFae();
  await makeShippedTool(host, 'timestamp', 'clock-cap');
  await E(host).send('fae', ['Use ', ''], ['clock'], ['clock-cap']);
  await nextFromFae();
  const [result] = lastToolResults(llm.requests[2]);
  t.regex(result.content, /\d{4}/);
  t.notRegex(result.content, /error/i);
  await daemon.stop();
});

test('a failing tool, an unknown tool and malformed arguments give error results and the turn goes on', async t => {
  const llm = makeScriptedProvider([
    {
      toolCalls: [
        { name: 'explode', arguments: {} },
        { name: 'nonesuch', arguments: {} },
        { name: 'lookup', arguments: '{"petName": "note"' },
        { name: 'lookup', arguments: '["note"]' },
      ],
    },
    { text: 'recovered' },
  ]);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({
    provider: llm.provider,
    introducedNames: { explode: 'explode' },
    prepare: async (_h, d) => {
      await makeToolCaplet(d, 'explode', () => makeFailingTool('the fuse was lit'));
    },
  });
  await nextFromFae();
  await E(host).send('fae', ['try things'], [], []);
  t.is(messageText(await nextFromFae()), 'recovered');
  const [failed, unknown, badJson, notObject] = lastToolResults(llm.requests[1]);
  t.is(failed.content, '{error:"explode: the fuse was lit"}');
  t.regex(unknown.content, /Unknown tool \\"nonesuch\\"\. The tools are: list, lookup/);
  t.regex(badJson.content, /not valid JSON/);
  t.regex(notObject.content, /must be a JSON object/);
  // No unparsable arguments are kept for later requests.
  const assistant = llm.requests[1].messages.at(-5);
  t.deepEqual(assistant?.tool_calls?.map(c => c.function.arguments), ['{}', '{}', '{}', '{}']);
  t.true(assistant?.tool_calls?.every(c => c.type === 'function'));
  await daemon.stop();
});

test('a hung tool times out with an error result and the loop continues', async t => {
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'wait', arguments: {} }] },
    { text: 'gave up waiting' },
  ]);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({
    provider: llm.provider,
    env: { FAE_TOOL_TIMEOUT_MS: '100' },
    introducedNames: { waiter: 'waiter' },
    prepare: async (_h, d) => {
      await makeToolCaplet(d, 'waiter', makeHangingTool);
    },
  });
  await nextFromFae();
  await E(host).send('fae', ['wait'], [], []);
  t.is(messageText(await nextFromFae()), 'gave up waiting');
  t.is(lastToolResults(llm.requests[1])[0].content, '{error:"Tool \\"wait\\" did not answer within 100 ms"}');
  await daemon.stop();
});

test('the tool calls of one response run concurrently, results in call order', async t => {
  const { events, first, second } = makeRendezvousTools();
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'second', arguments: {} }, { name: 'first', arguments: {} }] },
    { text: 'both done' },
  ]);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({
    provider: llm.provider,
    ...withToolPair(first, second),
  });
  await nextFromFae();
  await E(host).send('fae', ['run both'], [], []);
  t.is(messageText(await nextFromFae()), 'both done');
  t.deepEqual(events.slice(0, 2).sort(), ['first started', 'second started']);
  t.deepEqual(lastToolResults(llm.requests[1]).map(m => m.content), ['second done', 'first done']);
  await daemon.stop();
});

test('FAE_PARALLEL_TOOLS=0 runs the calls one by one', async t => {
  const { events, first, second } = makeSequenceTools(20);
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'first', arguments: {} }, { name: 'second', arguments: {} }] },
    { text: 'in turn' },
  ]);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({
    provider: llm.provider,
    env: { FAE_PARALLEL_TOOLS: '0' },
    ...withToolPair(first, second),
  });
  await nextFromFae();
  await E(host).send('fae', ['run both'], [], []);
  await nextFromFae();
  t.deepEqual(events, ['first started', 'first finished', 'second started', 'second finished']);
  await daemon.stop();
});

test('adopting a tool fae already has, or under a taken name, changes nothing', async t => {
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'adoptTool', arguments: { messageNumber: 1, edgeName: 'g', toolName: 'again' } }] },
    { toolCalls: [{ name: 'adoptTool', arguments: { messageNumber: 2, edgeName: 'm', toolName: 'greet-tool' } }] },
    { text: 'checked' },
  ]);
  const { host, fae, nextFromFae, daemon } = await startFaeInDaemon({
    provider: llm.provider,
    introducedNames: { 'greet-tool': 'greet-tool' },
    prepare: async h => {
      await makeShippedTool(h, 'greet', 'greet-tool');
      await makeShippedTool(h, 'math', 'math-tool');
    },
  });
  await nextFromFae();
  // Message 1 carries the greet tool fae already has; message 2 another tool.
  await E(host).send('fae', ['same ', ''], ['g'], ['greet-tool']);
  await E(host).send('fae', ['other ', ''], ['m'], ['math-tool']);
  t.is(messageText(await nextFromFae()), 'checked');
  const [sameTool] = lastToolResults(llm.requests[1]);
  t.is(sameTool.content, '@g from message #1 is already installed as tools/greet-tool; use it under its tool name.');
  const [takenName] = lastToolResults(llm.requests[2]);
  t.regex(takenName.content, /tools\/greet-tool already holds another tool; choose another toolName/);
  t.deepEqual(await E(fae).list('tools'), ['greet-tool']);
  await daemon.stop();
});

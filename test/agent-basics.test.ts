import test from 'ava';
import { E } from '@endo/far';
import { GUEST_SPECIAL_NAMES, startFaeInDaemon } from './support/fae-harness.js';
import { makeScriptedProvider } from './support/scripted-provider.js';
import { dialect, messageText, specialNames } from './support/daemon.js';
import { makeShippedTool } from './support/tool-caplets.js';
import { faultyPowers, makeFaults } from './support/faulty-powers.js';

test('fae announces itself to its host when it first starts, and says how to talk to it', async t => {
  const llm = makeScriptedProvider();
  const { nextFromFae, fae, daemon } = await startFaeInDaemon({ provider: llm.provider });
  const ready = await nextFromFae();
  // Scripts look for the first words; the rest tells a person what to do.
  t.is(
    messageText(ready),
    'Fae agent ready. Write to me here; mail me a tool as @name and I can adopt it and use it at once. /help lists what I answer myself.',
  );
  t.true(await E(fae).has('tools'));
  await daemon.stop();
});

test('a fae its host named otherwise (FAE_NAME) says its name when ready, and in its log lines, which a worker may share with other faes', async t => {
  const llm = makeScriptedProvider();
  const { nextFromFae, daemon, logs } = await startFaeInDaemon({ provider: llm.provider, env: { FAE_NAME: 'helper' } });
  t.teardown(() => daemon.stop());
  t.is(
    messageText(await nextFromFae()),
    'Fae agent ready. I am helper. Write to me here; mail me a tool as @name and I can adopt it and use it at once. /help lists what I answer myself.',
  );
  t.true(logs.length > 0);
  t.true(logs.every(line => line.startsWith('[fae helper] ')), logs.join('\n'));
});

test('a full round trip: tool call, send, dismiss, plain answer', async t => {
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'list', arguments: {} }] },
    request => ({
      toolCalls: [
        {
          name: 'send',
          // The old spelling: send takes it on every daemon.
          arguments: { recipient: 'HOST', strings: [`I see: ${request.messages.at(-1)?.content}`] },
        },
      ],
    }),
    { toolCalls: [{ name: 'dismiss', arguments: { messageNumber: 1 } }] },
    { text: 'All done.' },
  ]);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({ provider: llm.provider });
  await nextFromFae(); // ready
  await E(host).send('fae', ['What do you have?'], [], []);
  const answer = await nextFromFae();
  t.is(messageText(answer), `I see: ${JSON.stringify([...GUEST_SPECIAL_NAMES[dialect], 'tools'])}`);

  const first = llm.requests[0];
  t.is(first.messages[0].role, 'system');
  t.deepEqual(first.messages.at(-1), { role: 'user', content: `Message #1 from ${specialNames.host}: What do you have?` });
  // The first nine built-ins, first; the rest of the set: agent-built-ins.test.ts.
  t.deepEqual(first.toolNames.slice(0, 9), [
    'list', 'lookup', 'store', 'remove', 'adoptTool', 'send', 'reply', 'listMessages', 'dismiss',
  ]);
  await llm.whenCalled(4);
  const last = llm.requests[3].messages;
  t.is(last.at(-1)?.role, 'tool');
  // The message being answered is dismissed when the turn is over (issue 14 §6).
  t.is(last.at(-1)?.content, 'Message #1 will be dismissed when you finish this turn.');
  const callMessage = last.at(-2);
  t.is(callMessage?.role, 'assistant');
  t.is(callMessage?.tool_calls?.[0].type, 'function');
  t.is(callMessage?.tool_calls?.[0].id, last.at(-1)?.tool_call_id);
  await daemon.stop();
});

test('a new tools/ the daemon takes back at once is made again, and the first start still announces itself', async t => {
  const faults = makeFaults();
  let refusals = 0;
  // As the February daemon's collection does: the first new tools/ is gone.
  faults.refuse('list', ([name]) => name === 'tools' && (refusals += 1) === 1);
  const llm = makeScriptedProvider([]);
  const { fae, controller, logs, nextFromFae, daemon, READY_MESSAGE } = await startFaeInDaemon({
    provider: llm.provider,
    wrapPowers: powers => faultyPowers(powers, faults),
  });
  t.teardown(() => daemon.stop());
  t.is((await E(controller).whenStarted()).state, 'running');
  t.is(messageText(await nextFromFae()), READY_MESSAGE);
  t.true(logs.some(line => line.includes('directory-retried') && line.includes('tools')));
  t.deepEqual(await E(fae).list('tools'), []);
});

test('a tools name that cannot be listed is replaced at startup, so tools work again', async t => {
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'adoptTool', arguments: { messageNumber: 0, edgeName: 'g', toolName: 'greet' } }] },
    { toolCalls: [{ name: 'greet', arguments: { name: 'Di' } }] },
    request => ({ text: String(request.messages.at(-1)?.content) }),
  ]);
  const { host, fae, controller, logs, nextFromFae, daemon } = await startFaeInDaemon({
    provider: llm.provider,
    // As a dangling name would: `tools` is there but is no directory.
    introducedNames: { junk: 'tools' },
    prepare: async h => {
      await E(h).storeValue('not a directory', 'junk');
    },
  });
  const status = await E(controller).whenStarted();
  t.is(status.state, 'running');
  t.deepEqual(await E(fae).list('tools'), []);
  t.true(logs.some(line => line.includes('tools-directory-replaced')));
  await makeShippedTool(host, 'greet', 'greet-tool');
  await E(host).send('fae', ['use ', ''], ['g'], ['greet-tool']);
  t.is(messageText(await nextFromFae()), 'Hello, Di!');
  await daemon.stop();
});

test('a tools/ the daemon will not list at startup is left as it is, never replaced: what it holds is kept', async t => {
  const faults = makeFaults();
  const llm = makeScriptedProvider([]);
  const { fae, controller, logs, daemon, host } = await startFaeInDaemon({
    provider: llm.provider,
    wrapPowers: powers => faultyPowers(powers, faults),
  });
  t.teardown(() => daemon.stop());
  await E(controller).whenStarted();
  await E(fae).storeValue(harden({ kept: true }), ['tools', 'keep-me']);
  // A daemon that refuses to list tools/ while fae restarts.
  faults.refuse('list', args => args[0] === 'tools');
  await daemon.restart();
  const status = await E(await E(host).lookup('controller-for-fae')).whenStarted();
  t.is(status.state, 'running');
  t.true(logs.some(line => line.includes('tools-directory-unreadable')));
  t.false(logs.some(line => line.includes('tools-directory-replaced')));
  faults.allow('list');
  t.deepEqual(await E(fae).list('tools'), ['keep-me']);
});

// Commands fae answers itself, at once and without the model (issue 21):
// mail whose whole text is /help, /tools, /status (the host's only) or
// /forget. They keep their place among the sender's other messages and are
// not kept in the conversation.
import test from 'ava';
import { makePromiseKit } from '@endo/promise-kit';
import { startReadyFae } from './support/fae-harness.js';
import { echoReply, makeScriptedProvider, type ScriptedReply } from './support/scripted-provider.js';
import { makeCorrespondent } from './support/correspondent.js';
import { makeShippedTool } from './support/tool-caplets.js';
import { faultyPowers, makeFaults } from './support/faulty-powers.js';
import { waitForLog } from './support/registry-tools.js';
import { messageText, specialNames } from './support/daemon.js';

const userWords = (request: { messages: readonly { role: string; content: string }[] }) =>
  request.messages.filter(m => m.role === 'user').map(m => m.content);

test('/help lists the commands, /status only for the host, with no model call', async t => {
  const llm = makeScriptedProvider();
  const { host, ask } = await startReadyFae(t, { provider: llm.provider });
  const forHost = await ask('/help');
  t.is(
    forHost,
    [
      'I answer these myself, at once:',
      '',
      '- /help — this list',
      '- /tools — the tools I can use now',
      '- /status — how I am doing (for you, my host)',
      '- /usage — what my model calls have cost, in all and per correspondent (for you, my host)',
      '- /settings — a form to change my language model (for you, my host)',
      '- /approvals — what needs your approval, and your standing approvals (for you, my host)',
      '- /revoke N — revoke standing approval N (for you, my host)',
      '- /name WHO NAME — call a correspondent NAME from now on, WHO being how I call it now, as in /name unnamed-1a2b3c4d alice (for you, my host)',
      '- /forget — forget our conversation, so that your next message starts afresh',
      '',
      'Anything else you write, I answer with my language model and my tools. Mail me a tool as @name and I can adopt it and use it at once.',
    ].join('\n'),
  );
  const alice = await makeCorrespondent(host);
  // Surrounding blanks do not matter; the whole text must be the command.
  await alice.say('  /help\n');
  const forAlice = await alice.next();
  t.true(forAlice.startsWith('I answer these myself, at once:'));
  t.false(forAlice.includes('/status'));
  t.false(forAlice.includes('/settings'));
  t.false(forAlice.includes('/approvals'));
  t.is(llm.requests.length, 0);
});

test('/tools lists the built-ins by group, then the tools under tools/, with no model call; a correspondent reads only the names', async t => {
  const llm = makeScriptedProvider();
  const { host, ask } = await startReadyFae(t, {
    provider: llm.provider,
    introducedNames: { 'greet-tool': 'greet-tool' },
    prepare: async h => {
      await makeShippedTool(h, 'greet', 'greet-tool');
    },
  });
  t.is(
    await ask('/tools'),
    [
      'Built in:',
      '- my directory: list, lookup, store, remove, has, move, copy, makeDirectory, identify',
      '- mail and the tools it brings: send, reply, listMessages, dismiss, adopt, request, resolve, reject, adoptTool',
      '- inspecting capabilities: inspect, help',
      '- our conversation: forgetConversation',
      '',
      'Under tools/:',
      '- greet (tools/greet-tool) — Generate a greeting message for a given name, optionally in a specified language.',
    ].join('\n'),
  );
  // A description may say where a tool works (the filesystem tools' root): the host's setup, not alice's to read.
  const alice = await makeCorrespondent(host);
  await alice.say('/tools');
  const forAlice = await alice.next();
  t.true(forAlice.endsWith('Tools I was given:\n- greet'), forAlice);
  t.false(forAlice.includes('tools/greet-tool'));
  t.false(forAlice.includes('Generate a greeting'));
  t.is(llm.requests.length, 0);
});

test('/status gives the host a short summary without secrets; anyone else is told it is the host’s', async t => {
  const token = 'sk-test-status-secret-4242';
  const llm = makeScriptedProvider([{ text: 'hi', usage: { inputTokens: 12, outputTokens: 3 } }]);
  const { host, ask } = await startReadyFae(t, { provider: llm.provider, env: { LAL_AUTH_TOKEN: token } });
  await ask('hello');
  const status = await ask('/status');
  t.regex(
    status,
    /^I am running, on the model scripted \(openai\)\.\n\n- since I started \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\): 2 messages handled, 12 tokens in, 3 out\n- in all since \d{4}-\d\d-\d\d \d\d:\d\d UTC: 1 model calls, 12 tokens in, 3 out \(\/usage tells more\)\n- conversations: 1; storage ok$/,
  );
  // What the model calls cost, answered by fae itself: no model call.
  const usage = await ask('/usage');
  t.regex(usage, /^What fae's model calls have cost since .*:\n {2}in all: 1 request, 12 tokens in \(0 cached\), 3 out/);
  // The host's own line reads "you", not fae's special name for it.
  t.regex(usage, /\n {2}you: 1 request, 12 tokens in \(0 cached\), 3 out/);
  t.false(status.includes(token));
  const alice = await makeCorrespondent(host);
  await alice.say('/status');
  t.is(await alice.next(), '/status is for my host. /help lists what I answer myself.');
  await alice.say('/settings');
  t.is(await alice.next(), '/settings is for my host. /help lists what I answer myself.');
  await alice.say('/usage');
  t.is(await alice.next(), '/usage is for my host. /help lists what I answer myself.');
  await alice.say('/approvals');
  t.is(await alice.next(), '/approvals is for my host. /help lists what I answer myself.');
  await alice.say('/revoke 1');
  t.is(await alice.next(), '/revoke is for my host. /help lists what I answer myself.');
  t.is(llm.requests.length, 1, 'only "hello" reached the model');
});

test('/status says when the last error happened, redacted', async t => {
  const token = 'sk-test-status-secret-4343';
  const llm = makeScriptedProvider([{ error: `the LLM refused the key ${token}`, trouble: 'refused' }]);
  const { ask } = await startReadyFae(t, { provider: llm.provider, env: { LAL_AUTH_TOKEN: token } });
  await ask('hello');
  const before = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const status = await ask('/status');
  const line = status.split('\n').find(text => text.startsWith('- last error'));
  t.truthy(line, status);
  t.regex(line!, /^- last error \(\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\): the LLM refused the key \[redacted\]$/);
  t.true(line!.slice(14, 30) <= before, 'the time of the error, not of the question');
  t.false(status.includes(token));
});

test('/forget forgets the sender’s conversation and says so; commands are never in the conversation', async t => {
  const llm = makeScriptedProvider(Array.from({ length: 4 }, (): ScriptedReply => echoReply));
  const { host } = await startReadyFae(t, { provider: llm.provider });
  const alice = await makeCorrespondent(host);
  await alice.say('my colour is blue');
  t.is(await alice.next(), 're: my colour is blue');
  await alice.say('/help');
  await alice.next();
  await alice.say('what is my colour?');
  t.is(await alice.next(), 're: what is my colour?');
  t.deepEqual(
    userWords(llm.requests[1]).map(words => words.replace(/^Message #\d+ from [^:]*: /, '')),
    ['my colour is blue', 'what is my colour?'],
    'the /help in between is not in the conversation',
  );
  await alice.say('/forget');
  t.is(await alice.next(), 'I have forgotten our conversation; your next message starts afresh.');
  t.is(llm.requests.length, 2);
  await alice.say('hello again');
  t.is(await alice.next(), 're: hello again');
  t.deepEqual(userWords(llm.requests[2]).length, 1, 'nothing from before the /forget');
});

test('a /forget that fails tells the sender plainly and the host why; nothing is forgotten', async t => {
  const faults = makeFaults();
  const llm = makeScriptedProvider(Array.from({ length: 4 }, (): ScriptedReply => echoReply));
  const { host, nextFromFae, logs } = await startReadyFae(t, {
    provider: llm.provider,
    wrapPowers: powers => faultyPowers(powers, faults),
  });
  const alice = await makeCorrespondent(host);
  const from = logs.length;
  await alice.say('my colour is blue');
  await alice.next();
  // Stored, so forgetting has something to remove.
  await waitForLog(logs, ['message-done'], { from, timeoutMs: 20_000 });
  faults.refuse('remove', args => args[0] === 'conversations');
  await alice.say('/forget');
  t.is(await alice.next(), '(Note from fae: I could not forget our conversation, so I still remember it; my host knows of this trouble.)');
  t.regex(
    messageText(await nextFromFae()),
    /^I could not forget a conversation as asked in the message "\/forget" from an unnamed sender \(unnamed-[0-9a-f]{8}\): could not forget the conversation: .*refused remove.*try again later\.\n/,
  );
  await alice.say('what is my colour?');
  await alice.next();
  t.true(JSON.stringify(llm.requests.at(-1)?.messages).includes('my colour is blue'), 'still remembered');
});

test('a command waits for the sender’s earlier message to be answered', async t => {
  const release = makePromiseKit<void>();
  const llm = makeScriptedProvider([
    async () => {
      await release.promise;
      return { text: 'the slow answer' };
    },
  ]);
  const { host } = await startReadyFae(t, { provider: llm.provider });
  const alice = await makeCorrespondent(host);
  await alice.say('a slow question');
  await llm.whenCalled(1);
  await alice.say('/tools');
  // Long enough for an unordered answer to /tools to overtake the slow one.
  await new Promise(resolve => setTimeout(resolve, 300));
  release.resolve();
  t.is(await alice.next(), 'the slow answer');
  t.regex(await alice.next(), /^Built in:/);
});

test('mail that only starts with a command goes to the model', async t => {
  const llm = makeScriptedProvider([echoReply]);
  const { ask } = await startReadyFae(t, { provider: llm.provider });
  t.is(await ask('/help me write a poem'), 're: /help me write a poem');
  t.is(llm.requests.length, 1);
  t.is(userWords(llm.requests[0])[0], `Message #1 from ${specialNames.host}: /help me write a poem`);
});

// Conversations (src/conversations/): one private conversation per
// correspondent and thread, persisted in fae's directory so a restart
// resumes it, never holding a secret, recovering from bad stored data.
import test from 'ava';
import { E } from '@endo/far';
import { createProvider } from '../providers/index.js';
import { startFaeInDaemon } from './support/fae-harness.js';
import type { Far } from './support/fae-harness.js';
import { echoReply, lastUserWords, makeScriptedProvider } from './support/scripted-provider.js';
import { messageText, nextMessage, fromSelf, specialNames } from './support/daemon.js';
import type { MessageRecord } from './support/daemon.js';
import { startLlmServer, type RecordedRequest } from './support/llm-server.js';
import { faultyPowers, makeFaults } from './support/faulty-powers.js';
import { waitForLog } from './support/registry-tools.js';
import { storedNodes, untilStored } from './support/stored-nodes.js';
import { until } from './support/until.js';

/** Generous: the machine running the tests may be busy (no timing is asserted). */
const WAIT_MS = 30_000;
/** A whole test's bound, instead of ava's 10 s of silence. */
const BUSY_TIMEOUT_MS = 300_000;

/** A second guest, alice, who knows fae but whom fae has no name for. */
const makeAlice = async (host: Far) =>
  E(host).provideGuest('alice', { introducedNames: { fae: 'fae' }, agentName: 'alice-agent' });

const chatText = (request: RecordedRequest) => JSON.stringify(request.body.messages);
const lastUser = (request: RecordedRequest): string =>
  request.body.messages.filter((m: { role: string }) => m.role === 'user').at(-1)?.content ?? '';

/** Answers every chat request with "answer to <the last user message>". */
const echoServer = async () => {
  const server = await startLlmServer('openai');
  server.otherwise(request => ({ text: `answer to ${lastUserWords(request.body.messages)}` }));
  return server;
};

test('privacy: no request made for one correspondent carries what another said, either way', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const server = await echoServer();
  t.teardown(() => server.close());
  const { host, nextFromFae, daemon } = await startFaeInDaemon({
    provider: createProvider(server.env()),
    env: server.env(),
  });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  const alice = await makeAlice(host);
  const fromAlice = fromSelf(alice);
  let aliceSeen = -1n;
  const nextForAlice = async () => {
    const m = await nextMessage(alice, async r => r.number > aliceSeen && (await fromAlice(r)), WAIT_MS);
    aliceSeen = m.number;
    return m;
  };
  for (const round of [1, 2, 3]) {
    await E(host).send('fae', [`host-secret-${round} is the launch code`], [], []);
    t.is(messageText(await nextFromFae(WAIT_MS)), `answer to host-secret-${round} is the launch code`);
    await E(alice).send('fae', [`alice-private-${round} is my diary`], [], []);
    t.is(messageText(await nextForAlice()), `answer to alice-private-${round} is my diary`);
  }
  const requests = server.chatRequests;
  t.is(requests.length, 6);
  // fae names the host by the daemon's special name: HOST, or @host since May.
  const forHost = (request: RecordedRequest) => lastUser(request).includes(`from ${specialNames.host}:`);
  t.is(requests.filter(forHost).length, 3, 'three requests answer the host, three alice');
  for (const request of requests) {
    const text = chatText(request);
    if (forHost(request)) {
      t.false(text.includes('alice-private'), 'a request for HOST carried alice’s text');
    } else {
      t.false(text.includes('host-secret'), 'a request for alice carried HOST’s text');
      t.false(text.includes('launch code'));
    }
  }
  // Each still remembers its own earlier rounds.
  t.true(chatText(requests[4]).includes('host-secret-1'));
  t.true(chatText(requests[5]).includes('alice-private-1'));
});

test('restart: the follow-up reaches the model with the earlier exchange, and nothing is answered twice', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const server = await echoServer();
  t.teardown(() => server.close());
  const { host, nextFromFae, daemon, logs } = await startFaeInDaemon({
    provider: createProvider(server.env()),
    env: server.env(),
  });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  await E(host).send('fae', ['What is the capital of France?'], [], []);
  t.is(messageText(await nextFromFae(WAIT_MS)), 'answer to What is the capital of France?');

  await daemon.restart();
  await E(host).send('fae', ['And of Spain?'], [], []);
  t.is(messageText(await nextFromFae(WAIT_MS)), 'answer to And of Spain?');
  const requests = server.chatRequests;
  t.is(requests.length, 2);
  t.deepEqual(
    requests[1].body.messages.slice(1).map((m: { role: string; content: string }) => [m.role, m.content]),
    [
      ['user', `Message #1 from ${specialNames.host}: What is the capital of France?`],
      ['assistant', 'answer to What is the capital of France?'],
      ['user', `Message #3 from ${specialNames.host}: And of Spain?`],
    ],
  );
  t.true(logs.some(line => line.includes('conversation-restored')));
  // Exactly two answers in HOST's inbox, besides the ready message.
  const fromFae = (await E(host).listMessages()).filter(
    (m: MessageRecord) => (m.strings ?? [])[0]?.startsWith('answer to'),
  );
  t.is(fromFae.length, 2);
  // The controller of before the restart is gone; ask the new one.
  const status = await E(E(host).lookup('controller-for-fae')).status();
  t.is(status.conversations, 1);
  t.deepEqual(status.conversationSizes, [{ messages: 4, estimatedTokens: status.conversationSizes[0].estimatedTokens, summarized: false }]);
});

test('threads: a reply to fae continues that thread; another thread of the same sender does not see it, also after a restart', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const llm = makeScriptedProvider();
  for (let i = 0; i < 8; i += 1) llm.push(echoReply);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({ provider: llm.provider });
  t.teardown(() => daemon.stop());
  const ready = await nextFromFae(WAIT_MS);
  const requestText = (n: number) => JSON.stringify(llm.requests[n].messages);

  await E(host).send('fae', ['alpha: plain mail'], [], []);
  const answerAlpha = await nextFromFae(WAIT_MS);
  // A reply to fae's ready message, which answered nothing: a new thread.
  await E(host).reply(ready.number, ['beta: about your announcement'], [], []);
  const answerBeta = await nextFromFae(WAIT_MS);
  t.is(messageText(answerBeta), 're: beta: about your announcement');
  t.false(requestText(1).includes('alpha'));

  // Replying to fae's answers continues each one's thread.
  await E(host).reply(answerBeta.number, ['gamma: more on that'], [], []);
  await nextFromFae(WAIT_MS);
  t.true(requestText(2).includes('beta'));
  t.false(requestText(2).includes('alpha'));
  await E(host).reply(answerAlpha.number, ['delta: back to the first'], [], []);
  const answerDelta = await nextFromFae(WAIT_MS);
  t.true(requestText(3).includes('alpha'));
  t.false(requestText(3).includes('beta'));
  // A fresh message joins the main thread.
  await E(host).send('fae', ['epsilon: fresh again'], [], []);
  await nextFromFae(WAIT_MS);
  t.true(requestText(4).includes('delta'));
  t.false(requestText(4).includes('gamma'));

  await daemon.restart();
  await E(host).reply(answerBeta.number, ['zeta: after the restart'], [], []);
  await nextFromFae(WAIT_MS);
  t.true(requestText(5).includes('gamma'));
  t.false(requestText(5).includes('alpha'));
  await E(host).reply(answerDelta.number, ['eta: main again'], [], []);
  await nextFromFae(WAIT_MS);
  t.true(requestText(6).includes('epsilon'));
  t.false(requestText(6).includes('zeta'));
});

test('a reply to a message folded into the summary continues its thread, also after a restart', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const llm = makeScriptedProvider();
  const answer = (request: { messages: readonly { role: string; content: string }[] }) =>
    request.messages[0].content.startsWith('You keep the memory of a conversation')
      ? { text: 'HOST spoke of alpha, two and three.' }
      : echoReply(request);
  for (let i = 0; i < 12; i += 1) llm.push(answer);
  const { host, nextFromFae, daemon, logs } = await startFaeInDaemon({
    provider: llm.provider,
    env: { FAE_MAX_TRANSCRIPT: '3' },
  });
  t.teardown(() => daemon.stop());
  const ready = await nextFromFae(WAIT_MS);
  const lastRequest = () => JSON.stringify(llm.requests.at(-1)!.messages);

  await E(host).send('fae', ['alpha: the first'], [], []);
  const answerAlpha = await nextFromFae(WAIT_MS);
  await E(host).reply(ready.number, ['beta: another thread'], [], []);
  await nextFromFae(WAIT_MS);
  for (const text of ['two', 'three']) {
    await E(host).send('fae', [text], [], []);
    await nextFromFae(WAIT_MS);
  }
  // The main thread has folded alpha's turn into its summary.
  t.true(logs.some(line => line.includes('conversation-compacted')));
  t.false(lastRequest().includes('alpha: the first'));

  const continuesMain = () => {
    const request = lastRequest();
    t.true(request.includes('HOST spoke of alpha'));
    t.false(request.includes('beta'));
  };
  await E(host).reply(answerAlpha.number, ['delta: back to alpha'], [], []);
  t.is(messageText(await nextFromFae(WAIT_MS)), 're: delta: back to alpha');
  continuesMain();
  await daemon.restart();
  await E(host).reply(answerAlpha.number, ['epsilon: alpha once more'], [], []);
  t.is(messageText(await nextFromFae(WAIT_MS)), 're: epsilon: alpha once more');
  continuesMain();
});

test('a secret never reaches what is stored, even when said, called with and answered', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const canary = 'canary-token-7f3a9c2e5b1d';
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'lookup', arguments: { petName: canary } }] },
    { text: `Your token is ${canary}.` },
  ]);
  const { host, fae, nextFromFae, daemon } = await startFaeInDaemon({
    provider: llm.provider,
    env: { LAL_AUTH_TOKEN: canary },
  });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  await E(host).send('fae', [`remember my token ${canary}`], [], []);
  await nextFromFae(WAIT_MS);
  await untilStored(fae, 1);
  const nodes = await storedNodes(fae);
  t.is(nodes.length, 1);
  const stored = JSON.stringify(nodes);
  t.true(stored.includes('remember my token [redacted]'));
  t.false(stored.includes(canary));
  // Nor does the model see it again in a later request.
  llm.push({ text: 'ok' });
  await E(host).send('fae', ['again'], [], []);
  await nextFromFae(WAIT_MS);
  t.false(JSON.stringify(llm.requests[2].messages).includes(canary));
});

test('corrupt, foreign or missing stored data gives a warning and a fresh conversation, never a crash', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const echo = (request: { messages: readonly { role: string; content: string }[] }) => ({
    text: `users ${request.messages.filter(m => m.role === 'user').length}`,
  });
  const llm = makeScriptedProvider(Array.from({ length: 6 }, () => echo));
  const { host, fae, nextFromFae, daemon, logs } = await startFaeInDaemon({
    provider: llm.provider,
    // No answered message kept open to edits (August): a restart would
    // replay it, and keep its turn again from fae's answer, in the fresh
    // conversation this test expects empty.
    env: { FAE_EDITABLE_TURNS: '0' },
    // `conversations` starts out as something that is no directory.
    introducedNames: { junk: 'conversations' },
    prepare: async h => {
      await E(h).storeValue('not a directory', 'junk');
    },
  });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  t.true(logs.some(line => line.includes('conversations-directory-replaced')));
  // Each restart waits until the message before it is done (stored and
  // dismissed): one still in the inbox would be replayed, and its turn kept
  // again from fae's answer to it.
  const done = () => logs.filter(line => line.includes('message-done')).length;
  const answered = async (text: string) => {
    const before = done();
    await E(host).send('fae', [text], [], []);
    const answer = messageText(await nextFromFae(WAIT_MS));
    t.true(await until(async () => done() > before));
    return answer;
  };
  t.is(await answered('one'), 'users 1');
  await untilStored(fae, 1);
  const [node] = await storedNodes(fae);

  // Corrupt: the stored turn is garbage.
  await E(fae).storeValue(harden({ v: 1, kind: 'turn', nonsense: true }), ['conversations', node.key, node.name]);
  await daemon.restart();
  t.is(await answered('two'), 'users 1');
  t.true(logs.some(line => line.includes('conversation-unreadable') && line.includes(node.key.replace(/-g\d+$/, ''))));

  // The fresh conversation replaced the bad one (once stored: after its answer) and reads back cleanly.
  await daemon.restart();
  t.is(await answered('three'), 'users 2');

  // Corrupt text: a node's text is no JSON.
  await untilStored(fae, 2);
  const [cut] = await storedNodes(fae);
  await E(fae).storeValue((cut.value as string).slice(0, 20), ['conversations', cut.key, cut.name]);
  await daemon.restart();
  t.is(await answered('three again'), 'users 1');
  t.true(logs.some(line => line.includes('conversation-unreadable') && line.includes('holds text that is not a record')));

  // Foreign: a node that names another correspondent.
  await untilStored(fae, 1);
  const [first] = await storedNodes(fae);
  await E(fae).storeValue(JSON.stringify({ ...first.node, correspondent: 'someone else' }), ['conversations', first.key, first.name]);
  await daemon.restart();
  t.is(await answered('four'), 'users 1');
  t.true(logs.some(line => line.includes('another conversation')));

  // Missing: the whole directory removed behind fae's back.
  await E(fae).remove('conversations');
  await daemon.restart();
  t.is(await answered('five'), 'users 1');
  t.is((await E(E(host).lookup('controller-for-fae')).status()).state, 'running');
});

test('a failed turn leaves a note, so two user messages never follow each other unexplained', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const llm = makeScriptedProvider([{ error: 'the LLM is overloaded' }, { text: 'better now' }]);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({ provider: llm.provider });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  await E(host).send('fae', ['first try'], [], []);
  t.regex(messageText(await nextFromFae(WAIT_MS)), /^Sorry, I could not answer your message/);
  await E(host).send('fae', ['second try'], [], []);
  t.is(messageText(await nextFromFae(WAIT_MS)), 'better now');
  const roles = llm.requests[1].messages.map(m => m.role);
  t.deepEqual(roles, ['system', 'user', 'assistant', 'user']);
  t.regex(llm.requests[1].messages[2].content, /could not answer your message "first try": the LLM is overloaded/);
});

test('forgetConversation forgets the sender’s conversation only; status counts what fae holds', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const server = await echoServer();
  t.teardown(() => server.close());
  server
    .reply({ text: 'noted' })
    .reply({ text: 'noted too' })
    .reply({ toolCalls: [{ name: 'forgetConversation', arguments: {} }] })
    .reply({ text: 'Forgotten.' });
  const { host, fae, controller, nextFromFae, daemon } = await startFaeInDaemon({
    provider: createProvider(server.env()),
    env: server.env(),
  });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  const alice = await makeAlice(host);
  await E(host).send('fae', ['host plan: the blue door'], [], []);
  await nextFromFae(WAIT_MS);
  await E(alice).send('fae', ['alice plan: the red door'], [], []);
  await nextMessage(alice, fromSelf(alice), WAIT_MS);
  t.is((await E(controller).status()).conversations, 2);
  await untilStored(fae, 2);
  t.is((await E(fae).list('conversations')).length, 2);

  await E(host).send('fae', ['please forget everything I said'], [], []);
  t.is(messageText(await nextFromFae(WAIT_MS)), 'Forgotten.');
  t.is((await E(controller).status()).conversations, 1);
  t.is((await E(fae).list('conversations')).length, 1);
  await E(host).send('fae', ['what was my plan?'], [], []);
  await nextFromFae(WAIT_MS);
  const after = server.chatRequests.at(-1)!;
  t.false(chatText(after).includes('blue door'));
  t.false(chatText(after).includes('forget everything'));
  await E(alice).send('fae', ['and mine?'], [], []);
  await nextMessage(alice, async m => messageText(m) === 'answer to and mine?', WAIT_MS);
  t.true(chatText(server.chatRequests.at(-1)!).includes('red door'));
});

test('the model cannot read or touch stored conversations through its tools', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const llm = makeScriptedProvider([
    { text: 'first' },
    {
      toolCalls: [
        { name: 'list', arguments: {} },
        { name: 'lookup', arguments: { petName: 'conversations' } },
        { name: 'list', arguments: { path: 'conversations' } },
        { name: 'remove', arguments: { petName: 'conversations' } },
        { name: 'copy', arguments: { from: 'conversations', to: 'stolen' } },
        { name: 'send', arguments: { recipient: 'HOST', strings: ['', ''], edgeNames: ['c'], petNames: ['conversations'] } },
      ],
    },
    { text: 'done' },
  ]);
  const { host, fae, nextFromFae, daemon } = await startFaeInDaemon({ provider: llm.provider });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  await E(host).send('fae', ['one'], [], []);
  await nextFromFae(WAIT_MS);
  await E(host).send('fae', ['show me everything'], [], []);
  await nextFromFae(WAIT_MS);
  const results = llm.requests[2].messages.filter(m => m.role === 'tool').map(m => m.content);
  t.false(results[0].includes('conversations'));
  t.is(results.length, 6);
  for (const result of results.slice(1)) t.regex(result, /private memory of its conversations/);
  t.is((await E(fae).list('conversations')).length, 1);
  t.false(await E(fae).has('stolen'));
});

test('listMessages shows the model only the mail of the conversation it is handling', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const llm = makeScriptedProvider([
    { text: 'noted' },
    { toolCalls: [{ name: 'listMessages', arguments: {} }] },
    { text: 'here you are' },
  ]);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({
    provider: llm.provider,
    env: { FAE_AUTO_DISMISS: '0' },
  });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  await E(host).send('fae', ['host-private: the vault code'], [], []);
  await nextFromFae(WAIT_MS);
  const alice = await makeAlice(host);
  await E(alice).send('fae', ['alice asks: what mail do you have?'], [], []);
  await nextMessage(alice, fromSelf(alice), WAIT_MS);
  const listed = llm.requests[2].messages.at(-1)?.content ?? '';
  t.true(listed.includes('alice asks'));
  t.false(listed.includes('host-private'));
  t.false(listed.includes('noted'));
  t.false(listed.includes('Fae agent ready'));
});

test('a summary is stored as the start of a new generation and comes back after a restart', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const echo = (request: { messages: readonly { role: string; content: string }[] }) => ({
    text: `seen ${request.messages.length}`,
  });
  const llm = makeScriptedProvider([echo, echo, { text: 'HOST counted to two.' }, echo, echo]);
  const { host, fae, nextFromFae, daemon, logs } = await startFaeInDaemon({
    provider: llm.provider,
    env: { FAE_MAX_TRANSCRIPT: '3' },
  });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  for (const text of ['one', 'two', 'three']) {
    await E(host).send('fae', [text], [], []);
    await nextFromFae(WAIT_MS);
  }
  t.true(logs.some(line => line.includes('conversation-compacted') && line.includes('turns=2')));
  await untilStored(fae, 2);
  const nodes = await storedNodes(fae);
  t.deepEqual(nodes.map(node => node.name), ['n3', 'n4']);
  t.true(nodes[0].key.endsWith('-g2'));
  await daemon.restart();
  await E(host).send('fae', ['four'], [], []);
  await nextFromFae(WAIT_MS);
  t.deepEqual(llm.requests[4].messages.slice(1).map(m => m.content), [
    'Summary of your earlier conversation with this correspondent:\nHOST counted to two.',
    `Message #5 from ${specialNames.host}: three`,
    'seen 3',
    `Message #7 from ${specialNames.host}: four`,
  ]);
});

test('a conversation directory the daemon collected before its first store is made anew, and the turn is kept', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  // The February daemon can collect a directory between its making and the
  // naming (seen on the real daemon): the first store into it then fails.
  const faults = makeFaults();
  let refusals = 0;
  // Only the conversations' stores (fae stores its usage totals too).
  faults.refuse('storeValue', ([, path]) => {
    if (!Array.isArray(path) || path[0] !== 'conversations') return false;
    refusals += 1;
    return refusals === 1;
  });
  const llm = makeScriptedProvider([{ text: 'noted' }]);
  const { host, fae, nextFromFae, daemon, logs } = await startFaeInDaemon({
    provider: llm.provider,
    wrapPowers: powers => faultyPowers(powers, faults),
  });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  await E(host).send('fae', ['remember the number 42'], [], []);
  t.is(messageText(await nextFromFae(WAIT_MS)), 'noted');
  // The answer goes out first; the turn is stored after it.
  await waitForLog(logs, ['message-done'], { timeoutMs: WAIT_MS });
  t.deepEqual(faults.refused, ['storeValue']);
  t.true(logs.some(line => line.includes('directory-retried')));
  const nodes = await storedNodes(fae);
  t.is(nodes.length, 1);
  t.true(JSON.stringify(nodes[0].value).includes('remember the number 42'));
  t.false(logs.some(line => line.includes('conversation-not-stored')));
});

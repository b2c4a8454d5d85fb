// Scenario tests for fae's mail handling: what it answers, to whom, in
// which order, and how it behaves on failure, cancellation and restart.
import test from 'ava';
import { E } from '@endo/far';
import { startFaeInDaemon } from './support/fae-harness.js';
import type { Far } from './support/fae-harness.js';
import { makeScriptedProvider } from './support/scripted-provider.js';
import { messageText, nextMessage, fromSelf, specialNames } from './support/daemon.js';
import { makeShippedTool } from './support/tool-caplets.js';

const HOST = specialNames.host;

const delay = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

/** A second guest, alice, who knows fae but whom fae has no name for. */
const makeAlice = async (host: Far) =>
  E(host).provideGuest('alice', { introducedNames: { fae: 'fae' }, agentName: 'alice-agent' });

test('own messages are skipped and two messages are answered in order', async t => {
  const llm = makeScriptedProvider([
    request => ({ text: `echo ${request.messages.at(-1)?.content}` }),
    request => ({ text: `echo ${request.messages.at(-1)?.content}` }),
  ]);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({ provider: llm.provider });
  await nextFromFae();
  await E(host).send('fae', ['first'], [], []);
  await E(host).send('fae', ['second'], [], []);
  t.is(messageText(await nextFromFae()), `echo Message #1 from ${HOST}: first`);
  t.is(messageText(await nextFromFae()), `echo Message #2 from ${HOST}: second`);
  // Neither the ready message nor fae's own replies reached the model.
  t.is(llm.requests.length, 2);
  t.deepEqual(
    llm.requests[1].messages.filter(m => m.role === 'user').map(m => m.content),
    [`Message #1 from ${HOST}: first`, `Message #2 from ${HOST}: second`],
  );
  await daemon.stop();
});

test('a plain answer to a sender fae has no name for goes back by reply', async t => {
  const llm = makeScriptedProvider([{ text: 'Hello alice.' }]);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({ provider: llm.provider });
  await nextFromFae();
  const alice = await makeAlice(host);
  await E(alice).send('fae', ['hi fae'], [], []);
  const answer = await nextMessage(alice, fromSelf(alice));
  t.is(messageText(answer), 'Hello alice.');
  t.regex(llm.requests[0].messages.at(-1)?.content ?? '', /^Message #1 from an unnamed sender \(unnamed-[0-9a-f]{8}\): hi fae$/);
  await daemon.stop();
});

test('a request message is described to the model, not hidden', async t => {
  const llm = makeScriptedProvider([{ text: 'I cannot give you that.' }]);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({ provider: llm.provider });
  await nextFromFae();
  const alice = await makeAlice(host);
  // The request stays pending; only the message matters here.
  E(alice).request('fae', 'a counter, please', 'counter').catch(() => {});
  await llm.whenCalled(1);
  t.regex(
    llm.requests[0].messages.at(-1)?.content ?? '',
    /^Message #1 from an unnamed sender \(unnamed-[0-9a-f]{8}\) is a request \(type "request"\), asking: a counter, please/,
  );
  t.is(messageText(await nextMessage(alice, fromSelf(alice))), 'I cannot give you that.');
  await daemon.stop();
});

test('when the model fails, the sender hears so, the host hears why, and the next message is served', async t => {
  const llm = makeScriptedProvider([{ error: 'the model is out to lunch at http://127.0.0.1:9' }, { text: 'back again' }]);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({ provider: llm.provider });
  await nextFromFae();
  const alice = await makeAlice(host);
  await E(alice).send('fae', ['are you there?'], [], []);
  const failure = await nextMessage(alice, fromSelf(alice));
  // Not a provider's error: the plain words for anything else.
  t.is(
    messageText(failure),
    'Sorry — something went wrong while I worked on your message; my host knows of this trouble. (About "are you there?")',
  );
  t.regex(
    messageText(await nextFromFae()),
    /^I could not answer the message "are you there\?" from an unnamed sender \(unnamed-[0-9a-f]{8}\): the model is out to lunch at http:\/\/127\.0\.0\.1:9\n/,
  );
  await E(host).send('fae', ['and now?'], [], []);
  t.is(messageText(await nextFromFae()), 'back again');
  await daemon.stop();
});

test('a turn stops at FAE_MAX_ITERATIONS model calls and the sender is told', async t => {
  const looping = { toolCalls: [{ name: 'list', arguments: {} }] };
  const llm = makeScriptedProvider([looping, looping, looping, looping, { text: 'next one' }]);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({
    provider: llm.provider,
    env: { FAE_MAX_ITERATIONS: '3' },
  });
  await nextFromFae();
  await E(host).send('fae', ['loop forever'], [], []);
  // The host sent it: the operator's detail, with the setting that bounds a turn.
  t.regex(
    messageText(await nextFromFae()),
    /^I stopped working on your message "loop forever" after 3 model calls without finishing \(the limit is FAE_MAX_ITERATIONS=3\)/,
  );
  t.is(llm.requests.length, 3);
  await E(host).send('fae', ['something else'], [], []);
  // The script's fourth reply is a tool call again; the fifth answers.
  t.is(messageText(await nextFromFae()), 'next one');
  await daemon.stop();
});

test('after cancellation no new model request is made and the inbox is let go', async t => {
  const llm = makeScriptedProvider([{ hang: true }, { text: 'should never be asked' }]);
  const { host, fae, nextFromFae, daemon } = await startFaeInDaemon({ provider: llm.provider });
  await nextFromFae();
  await E(host).send('fae', ['one'], [], []);
  await llm.whenCalled(1);
  // fae's inbox reader is live on the daemon side.
  t.true(daemon.openFollowers() > 0);
  await E(host).cancel('controller-for-fae');
  await E(host).send('fae', ['two'], [], []);
  await delay(200);
  t.is(llm.requests.length, 1);
  // Every reader was let go (return() on a far iterator, a close syn on a
  // stream reader): the daemon ends each once its next item arrives (mail
  // for the inbox, a name under tools/ for the tool registry, a top-level
  // name for the watch of fae's own names, once it has caught up), which a
  // few more round trips let it reach under load.
  await E(host).storeValue('wake', ['profile-for-fae', 'tools', 'wake']);
  await E(host).storeValue('wake', ['profile-for-fae', 'wake']);
  for (let trip = 0; trip < 50 && daemon.openFollowers() > 0; trip += 1) {
    await E(host).list();
  }
  t.is(daemon.openFollowers(), 0);
  // The interrupted message was not handled, so it stays for the next start.
  const kept = await E(fae).listMessages();
  t.true(kept.some((m: { strings?: string[] }) => m.strings?.[0] === 'one'));
  await daemon.stop();
});

test('a restart keeps adopted tools, sends no second ready, and replays nothing handled', async t => {
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'adoptTool', arguments: { messageNumber: 1, edgeName: 'g', toolName: 'greet-tool' } }] },
    { text: 'adopted' },
    { toolCalls: [{ name: 'greet', arguments: { name: 'Cy' } }] },
    request => ({ text: String(request.messages.at(-1)?.content) }),
  ]);
  const { host, fae, nextFromFae, daemon } = await startFaeInDaemon({ provider: llm.provider });
  await nextFromFae();
  await makeShippedTool(host, 'greet', 'greet-tool');
  await E(host).send('fae', ['take ', ''], ['g'], ['greet-tool']);
  t.is(messageText(await nextFromFae()), 'adopted');

  await daemon.restart();
  await E(host).send('fae', ['greet Cy'], [], []);
  t.is(messageText(await nextFromFae()), 'Hello, Cy!');
  t.deepEqual(await E(fae).list('tools'), ['greet-tool']);
  // Exactly one ready message in all, and message #1 was not handled twice.
  const readies = (await E(host).listMessages()).filter(
    (m: { strings?: string[] }) => m.strings?.[0]?.startsWith('Fae agent ready.'),
  );
  t.is(readies.length, 1);
  t.is(llm.requests.length, 4);
  // The conversation itself survived the restart (src/conversations/).
  t.deepEqual(
    llm.requests[2].messages.filter(m => m.role === 'user').map(m => m.content),
    [`Message #1 from ${HOST}: take @g`, `Message #3 from ${HOST}: greet Cy`],
  );
  await daemon.stop();
});

test('secrets never reach the logs or the mail, even with FAE_DEBUG=1', async t => {
  const token = 'sk-test-supersecret-1234567';
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'list', arguments: {} }] },
    { error: `the server rejected key ${token}` },
  ]);
  const { host, nextFromFae, logs, daemon } = await startFaeInDaemon({
    provider: llm.provider,
    env: { LAL_AUTH_TOKEN: token, FAE_DEBUG: '1' },
  });
  await nextFromFae();
  await E(host).send('fae', [`my key is ${token}`], [], []);
  const failure = messageText(await nextFromFae());
  t.is(failure, 'Sorry, I could not answer your message "my key is [redacted]": the server rejected key [redacted]');
  t.true(logs.some(line => line.includes('debug transcript')));
  t.false(logs.some(line => line.includes(token)));
  t.true(logs.some(line => line.includes('message-received')));
  t.true(logs.some(line => line.includes('tool-called') && line.includes('tool=list')));
  await daemon.stop();
});

test('think blocks never go back to the model', async t => {
  const llm = makeScriptedProvider([
    { text: '<think>secret plan</think>\n<tool_call>{"name": "list", "arguments": {}}</tool_call>' },
    { text: '<think>more thoughts</think>The answer.' },
    { text: 'ok' },
  ]);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({ provider: llm.provider });
  await nextFromFae();
  await E(host).send('fae', ['think'], [], []);
  t.is(messageText(await nextFromFae()), 'The answer.');
  await E(host).send('fae', ['again'], [], []);
  await nextFromFae();
  const sent = JSON.stringify(llm.requests[2].messages);
  t.false(sent.includes('secret plan'));
  t.false(sent.includes('more thoughts'));
  t.false(sent.includes('<think>'));
  const call = llm.requests[1].messages.at(-2);
  t.is(call?.tool_calls?.[0].function.name, 'list');
  t.is(call?.content, '');
  await daemon.stop();
});

test('token usage is summed per turn and in status(); a cut-off answer says so', async t => {
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'list', arguments: {} }], usage: { inputTokens: 100, outputTokens: 10 } },
    { text: 'The list is long and', stopReason: 'max_tokens', usage: { inputTokens: 150, outputTokens: 20 } },
  ]);
  const { host, controller, nextFromFae, logs, daemon } = await startFaeInDaemon({ provider: llm.provider });
  await nextFromFae();
  await E(host).send('fae', ['list everything'], [], []);
  t.is(
    messageText(await nextFromFae()),
    'The list is long and\n\n(This answer was cut off at the output limit, LAL_MAX_TOKENS.)',
  );
  const status = await E(controller).status();
  t.is(status.inputTokens, 250);
  t.is(status.outputTokens, 30);
  t.is(status.handledMessages, 1);
  t.true(logs.some(line => line.includes('turn-finished message=1 outcome=answered iterations=2 requests=2 inputTokens=250 cachedInputTokens=0 outputTokens=30')));
  await daemon.stop();
});

test('past FAE_MAX_TRANSCRIPT the oldest turns are folded into a summary, keeping the instructions', async t => {
  const echo = (request: { messages: readonly { content: string }[] }) => ({ text: `seen ${request.messages.length}` });
  const llm = makeScriptedProvider([echo, echo, { text: 'HOST said one and two.' }, echo]);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({
    provider: llm.provider,
    env: { FAE_MAX_TRANSCRIPT: '3' },
  });
  await nextFromFae();
  for (const text of ['one', 'two', 'three']) {
    await E(host).send('fae', [text], [], []);
    await nextFromFae();
  }
  t.is(llm.requests.length, 4);
  const last = llm.requests[3].messages;
  t.is(last[0].role, 'system');
  t.deepEqual(last.slice(1).map(m => m.content), [
    'Summary of your earlier conversation with this correspondent:\nHOST said one and two.',
    `Message #5 from ${HOST}: three`,
  ]);
  await daemon.stop();
});

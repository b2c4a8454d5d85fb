// fae on the local servers people run (issue 35), through the real SDKs
// over loopback HTTP with llama.cpp's wire behaviour: a request past the
// server's context is made smaller and sent once more; one that still
// cannot fit ends its turn, which is not kept (so later turns do not fail
// on it), and the host is told what to change. Every dialect.
import test from 'ava';
import { E } from '@endo/far';
import { createProvider } from '../providers/index.js';
import { startFaeInDaemon } from './support/fae-harness.js';
import { startLlmServer } from './support/llm-server.js';
import { messageText } from './support/daemon.js';

const WAIT_MS = 30_000;

/** llama.cpp's answer to a request past its context (HTTP 400). */
const OVERFLOW = harden({
  error: {
    code: 400,
    message: 'request (9586 tokens) exceeds the available context size (4096 tokens), try increasing it',
    type: 'exceed_context_size_error',
    n_prompt_tokens: 9586,
    n_ctx: 4096,
  },
});

const start = async (t: { teardown(fn: () => unknown): void }) => {
  const server = await startLlmServer('openai', { llamaCpp: true, window: 8192 });
  t.teardown(() => server.close());
  const started = await startFaeInDaemon({ provider: createProvider(server.env({ LAL_MAX_RETRIES: '0' })), env: {} });
  t.teardown(() => started.daemon.stop());
  await started.nextFromFae(WAIT_MS);
  const ask = async (text: string) => {
    await E(started.host).send('fae', [text], [], []);
    return messageText(await started.nextFromFae(WAIT_MS));
  };
  return { server, ...started, ask };
};

test("a request past the server's context is made smaller, by what the server counted, and sent once more", async t => {
  const { server, ask, logs } = await start(t);
  // A conversation that nearly fills the server's 8192 tokens, by fae's estimates.
  for (let n = 1; n <= 7; n += 1) {
    server.reply({ text: 'Noted.' });
    t.is(await ask(`Note ${n}: ${'words of a long note '.repeat(120)}`), 'Noted.');
  }
  // The server counts more than fae estimated, and refuses; fae learns by how much.
  const refusal = harden({ error: { ...OVERFLOW.error, message: 'request (8600 tokens) exceeds the available context size (8192 tokens), try increasing it' } });
  const answer = (request: { body: { tools?: readonly unknown[] } }) => ({ text: (request.body.tools ?? []).length === 0 ? 'Notes on words.' : 'Answered within 8192 tokens.' });
  server.fail(400, refusal).respond(answer).respond(answer);
  t.is(await ask('one more note'), 'Answered within 8192 tokens.');
  const bodies = server.chatRequests.map(request => request.body);
  const refused = bodies[7];
  const resent = bodies.slice(8).find(body => (body.tools ?? []).length > 0);
  t.true(
    resent !== undefined && JSON.stringify(resent.messages).length < JSON.stringify(refused.messages).length,
    'the second try is smaller than the refused one',
  );
  // What the server counted taught fae's estimates; its window is not narrowed for good.
  t.false(logs.some(line => line.includes('context-window-narrowed')));
});

test("a turn that cannot fit is sent once, not kept, and the host is told what to change", async t => {
  const { server, ask } = await start(t);
  server.fail(400, OVERFLOW);
  const told = await ask('SOMETHING ENORMOUS');
  t.regex(told, /cannot read a request this long \(it holds 4096 tokens\)/);
  t.regex(told, /give the model a larger context \(llama\.cpp: -c; Ollama: num_ctx\), offer fewer built-in tools \(FAE_BUILTINS\), or send a shorter message/);
  // Nothing could be left out of it: the same request is not sent again.
  t.is(server.chatRequests.length, 1);
  // The next message does not carry the one that could not fit.
  server.reply({ text: 'hello again' });
  t.is(await ask('hi'), 'hello again');
  t.false(JSON.stringify(server.chatRequests.at(-1)?.body.messages).includes('SOMETHING ENORMOUS'));
});

test('what the server says of its reading reaches the turn: fae asks for it and its events say how far', async t => {
  const { server, host, controller } = await start(t);
  const events = E(controller).followEvents();
  server.reply({ text: 'Read it all.', progress: [0, 2048, 4096] });
  await E(host).send('fae', ['a question'], [], []);
  const seen: string[] = [];
  for (;;) {
    const { value } = await E(events).next();
    if (value.type === 'progress') seen.push(value.text);
    if (value.type === 'turn-done') break;
  }
  t.deepEqual(seen, ['the model is reading the conversation, 0%', 'the model is reading the conversation, 50%', 'the model is reading the conversation, 100%']);
  t.is(server.chatRequests[0].body.return_progress, true);
});

test("a conversation past the server's window is folded into a summary, sized by the server's window", async t => {
  // The server holds 8192 tokens; fae's setting (FAE_CONTEXT_TOKENS) is left at its far larger default.
  const server = await startLlmServer('openai', { llamaCpp: true, window: 8192 });
  t.teardown(() => server.close());
  const started = await startFaeInDaemon({ provider: createProvider(server.env({ LAL_MAX_RETRIES: '0' })), env: {} });
  t.teardown(() => started.daemon.stop());
  await started.nextFromFae(WAIT_MS);
  const summaries: number[] = [];
  for (let i = 0; i < 16; i += 1) {
    server.respond(request => {
      const isSummary = request.body.tools === undefined || request.body.tools.length === 0;
      if (isSummary) summaries.push(Number(/at most (\d+) words/.exec(JSON.stringify(request.body.messages))?.[1]));
      // What a real server reports: about a token for every four characters it read.
      const usage = { inputTokens: Math.ceil(JSON.stringify(request.body).length / 4), outputTokens: 3 };
      return { text: isSummary ? 'SUMMARY: the person wrote long notes.' : 'Noted.', usage };
    });
  }
  // Each note about 600 tokens: eight of them and fae's own part are past 8192.
  for (let n = 1; n <= 10; n += 1) {
    await E(started.host).send('fae', [`Note ${n}: ${'words of a long note '.repeat(120)}`], [], []);
    t.is(messageText(await started.nextFromFae(WAIT_MS)), 'Noted.');
  }
  t.true(summaries.length >= 1, 'the old turns were folded into a summary');
  // The summary is sized by the server's window (an eighth of it), not by the configured 32,000.
  t.true(summaries.every(words => words > 0 && words <= 0.6 * (8192 / 8)), JSON.stringify(summaries));
  // Folded to half the room left, not at every turn.
  t.true(summaries.length <= 2, JSON.stringify(summaries));
  const last = JSON.stringify(server.chatRequests.at(-1)?.body.messages);
  t.true(last.includes('SUMMARY: the person wrote long notes.'), 'the next request carries the summary');
  t.true(started.logs.some(line => line.includes('conversation-compacted')));
});

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

test('a request past the server\'s context is made smaller and sent once more', async t => {
  const { server, ask, logs } = await start(t);
  server.fail(400, OVERFLOW).reply({ text: 'Answered within 4096 tokens.' });
  t.is(await ask('a long question'), 'Answered within 4096 tokens.');
  t.is(server.chatRequests.length, 2);
  t.true(logs.some(line => line.includes('context-window-narrowed') && line.includes('tokens=3481')));
});

test("a turn that still cannot fit is not kept, and the host is told what to change", async t => {
  const { server, ask } = await start(t);
  server.fail(400, OVERFLOW).fail(400, OVERFLOW);
  const told = await ask('SOMETHING ENORMOUS');
  t.regex(told, /cannot read a request this long \(it holds 4096 tokens\)/);
  t.regex(told, /FAE_CONTEXT_TOKENS/);
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
  t.deepEqual(seen, ['the model is reading, 0%', 'the model is reading, 50%', 'the model is reading, 100%']);
  t.is(server.chatRequests[0].body.return_progress, true);
});

// The local servers people run, over loopback HTTP with their wire
// behaviour (llama.cpp's server, Ollama): how many tokens each can read at
// once (llama.cpp's model list, Ollama's /api/show), what fae asks Ollama
// to hold (num_ctx), llama.cpp's word of progress while it reads a long
// prompt, and its answer to a request past its context.
import test from 'ava';
import { ContextOverflowError, createProvider, type ChatMessage } from '../providers/index.js';
import { troubleOf } from '../providers/errors.js';
import { startLlmServer, type LlmServerOptions } from './support/llm-server.js';

const hi: ChatMessage[] = harden([{ role: 'user', content: 'hi' }]);

const start = async (t: { teardown(fn: () => Promise<void>): void }, kind: 'openai' | 'ollama', options: LlmServerOptions = {}) => {
  const server = await startLlmServer(kind, options);
  t.teardown(() => server.close());
  return server;
};

test("llama.cpp's server: its context is read from its model list, and it is asked for its progress, which reaches onProgress", async t => {
  const server = await start(t, 'openai', { llamaCpp: true, window: 8192 });
  const provider = createProvider(server.env());
  t.is(await provider.contextWindow?.(), 8192);
  server.reply({ text: 'Bonjour', progress: [0, 2048, 3122] });
  const read: string[] = [];
  const result = await provider.chat(hi, [], { onProgress: ({ processed, total }) => read.push(`${processed}/${total}`) });
  t.is(result.message.content, 'Bonjour');
  t.deepEqual(read, ['0/3122', '2048/3122', '3122/3122']);
  t.is(server.chatRequests[0].body.return_progress, true);
});

test('another OpenAI-compatible server is not asked for progress; a vLLM-like max_model_len is its context', async t => {
  const server = await start(t, 'openai', { window: 4096 });
  const provider = createProvider(server.env());
  t.is(await provider.contextWindow?.(), 4096);
  server.reply({ text: 'ok' });
  await provider.chat(hi, []);
  t.is(server.chatRequests[0].body.return_progress, undefined);
});

test('a server that says nothing of its context leaves it unknown', async t => {
  const server = await start(t, 'openai');
  t.is(await createProvider(server.env()).contextWindow?.(), undefined);
});

test('Ollama: the model\'s context comes from /api/show, and fae asks it to hold its budget within that (num_ctx)', async t => {
  const small = await start(t, 'ollama', { window: 8192 });
  const provider = createProvider(small.env());
  t.is(await provider.contextWindow?.(), 8192);
  small.reply({ text: 'ok' });
  await provider.chat(hi, []);
  t.is(small.chatRequests[0].body.options.num_ctx, 8192, 'the model holds less than FAE_CONTEXT_TOKENS');
  const large = await start(t, 'ollama', { window: 40960 });
  large.reply({ text: 'ok' });
  await createProvider(large.env({ FAE_CONTEXT_TOKENS: '12000' })).chat(hi, []);
  t.is(large.chatRequests[0].body.options.num_ctx, 12000, 'FAE_CONTEXT_TOKENS holds less than the model');
});

test("a request past llama.cpp's context is a ContextOverflowError saying what it holds and naming the fix", async t => {
  const server = await start(t, 'openai', { llamaCpp: true, window: 4096 });
  // llama.cpp's own answer (HTTP 400, streamed or not).
  server.fail(400, {
    error: {
      code: 400,
      message: 'request (9586 tokens) exceeds the available context size (4096 tokens), try increasing it',
      type: 'exceed_context_size_error',
      n_prompt_tokens: 9586,
      n_ctx: 4096,
    },
  });
  const error = await t.throwsAsync(createProvider(server.env({ LAL_MAX_RETRIES: '0' })).chat(hi, []), { instanceOf: ContextOverflowError });
  t.is(error.contextTokens, 4096);
  t.is(troubleOf(error), 'context');
  t.regex(error.message, /cannot read a request this long \(it holds 4096 tokens\)/);
  t.regex(error.message, /FAE_CONTEXT_TOKENS/);
});

// The local servers people run, over loopback HTTP with their wire
// behaviour (llama.cpp's server, Ollama): how many tokens each can read at
// once (llama.cpp's model list, Ollama's /api/show), what fae asks Ollama
// to hold (num_ctx), llama.cpp's word of progress while it reads a long
// prompt, and its answer to a request past its context.
import test from 'ava';
import { ContextOverflowError, createProvider, type ChatMessage } from '../providers/index.js';
import { readContextOverflow, troubleOf } from '../providers/errors.js';
import { makeContextWindow } from '../src/agent/limits/context-window.js';
import { makeLogger } from '../src/logging/log.js';
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
  t.is(error.requestTokens, 9586);
  t.is(troubleOf(error), 'context');
  t.regex(error.message, /cannot read a request this long \(it holds 4096 tokens\)/);
  t.regex(error.message, /give the model a larger context \(llama\.cpp: -c; Ollama: num_ctx\)/);
});

test('what each kind of server says of a request too long is read: what it holds, and what it counted', t => {
  const read = (message: string) => readContextOverflow(400, message);
  t.deepEqual(read('request (9586 tokens) exceeds the available context size (4096 tokens), try increasing it'), { contextTokens: 4096, requestTokens: 9586 });
  t.deepEqual(
    read("This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens. Please reduce the length of the messages."),
    { contextTokens: 8192, requestTokens: 9001 },
  );
  t.deepEqual(read('prompt is too long: 210000 tokens > 200000 maximum'), { contextTokens: 200000, requestTokens: 210000 });
  t.deepEqual(read('the input exceeds the context window'), { contextTokens: undefined });
  t.is(read('model not found'), undefined);
  t.is(readContextOverflow(401, 'request (9586 tokens) exceeds the available context size (4096 tokens)'), undefined);
});

test("the context window: the server's word within the setting, a refusal narrows it, a new word starts over", t => {
  const lines: string[] = [];
  const window = makeContextWindow({ configured: 32_000, logger: makeLogger({ redact: text => text, write: line => lines.push(line) }) });
  t.is(window.tokens(), 32_000);
  window.fromServer(8192);
  t.is(window.tokens(), 8192);
  t.true(window.refused(4096), 'what the refusal said, less a margin, is smaller');
  t.is(window.tokens(), Math.floor(4096 * 0.85));
  t.true(window.refused(undefined), 'saying nothing, the window narrows by the margin');
  t.is(window.tokens(), Math.floor(Math.floor(4096 * 0.85) * 0.85));
  t.false(window.refused(64_000), 'a refusal that would widen it changes nothing');
  window.fromServer(16_384);
  t.is(window.tokens(), 16_384, "the server's new word replaces what refusals taught");
  t.true(lines.some(line => line.includes('context-window-narrowed')));
});

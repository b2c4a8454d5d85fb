// Prompt caching asked for where each provider needs it (issue 23, part
// 2), over loopback HTTP through the official SDKs: the fields each request
// body carries when the chat comes with cache hints (ChatOptions.cache),
// none without, and the cached-token counts read from answers shaped as
// each API sends them, streamed (server-sent events, NDJSON) and plain.
import test from 'ava';
import { createProvider, type ChatMessage, type ProviderOptions } from '../providers/index.js';
import { startLlmServer, type LlmKind } from './support/llm-server.js';
import { GREET_TOOL, startProviderServer } from './support/provider-fixtures.js';

type Teardown = { teardown(fn: () => Promise<void>): void };

const CACHE = harden({ key: 'fae-0123456789abcdef0123456789abcdef', stableMessages: 5 });

/** fae's shape of request: its instructions, a summary, a finished turn with a tool call, a new question. */
const conversation: readonly ChatMessage[] = harden([
  { role: 'system', content: 'You are fae.' },
  { role: 'system', content: 'Summary of your earlier conversation: hello.' },
  { role: 'user', content: 'Message #1 from HOST: greet Ada' },
  { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'greet', arguments: '{"name":"Ada"}' } }] },
  { role: 'tool', tool_call_id: 'call_1', name: 'greet', content: 'Hello, Ada!' },
  { role: 'assistant', content: 'I greeted Ada.' },
  { role: 'user', content: 'Message #2 from HOST: and Bo?' },
]);

/** Where a body carries cache_control, as paths. */
const breakpointsOf = (body: { tools?: unknown[]; system?: unknown[]; messages: { content: unknown[] }[] }) => {
  const found: string[] = [];
  const look = (where: string, items: unknown) => {
    if (!Array.isArray(items)) return;
    items.forEach((item, i) => {
      if ((item as { cache_control?: unknown }).cache_control !== undefined) found.push(`${where}[${i}]`);
    });
  };
  look('tools', body.tools);
  look('system', body.system);
  body.messages.forEach((message, i) => look(`messages[${i}]`, message.content));
  return found;
};

test('anthropic: with cache hints, breakpoints on the last tool, the instructions and the newest stable point; none without', async t => {
  const { server, provider } = await startProviderServer(t, 'anthropic', {});
  server.otherwise({ text: 'ok' });
  const tools = [GREET_TOOL, { ...GREET_TOOL, function: { ...GREET_TOOL.function, name: 'wave' } }];
  await provider.chat(conversation, tools, { cache: { ...CACHE, stableMessages: conversation.length } });
  await provider.chat(conversation, tools, { cache: CACHE });
  await provider.chat(conversation, tools, { cache: { ...CACHE, stableMessages: 2 } });
  await provider.chat(conversation, tools);
  const [whole, part, systemOnly, none] = server.chatRequests.map(request => request.body);
  t.deepEqual(breakpointsOf(whole), ['tools[1]', 'system[0]', 'messages[4][0]'], 'the request’s last block: the new question');
  t.deepEqual(whole.tools[1].cache_control, { type: 'ephemeral' });
  // Five messages: the two system ones, the question, the call, the result: its tool_result block.
  t.deepEqual(breakpointsOf(part), ['tools[1]', 'system[0]', 'messages[2][0]']);
  t.is(part.messages[2].content[0].type, 'tool_result');
  t.deepEqual(breakpointsOf(systemOnly), ['tools[1]', 'system[0]', 'system[1]'], 'the summary, when only the system part stays');
  t.deepEqual(breakpointsOf(none), [], 'a request that is not repeated pays for no cache write');
  t.deepEqual(none.system, [
    { type: 'text', text: 'You are fae.' },
    { type: 'text', text: 'Summary of your earlier conversation: hello.' },
  ]);
});

test('anthropic: the breakpoint falls on the right block when tool results merge into one turn', async t => {
  const { server, provider } = await startProviderServer(t, 'anthropic', {});
  server.otherwise({ text: 'ok' });
  const two: ChatMessage[] = [
    { role: 'system', content: 'You are fae.' },
    { role: 'user', content: 'greet two' },
    {
      role: 'assistant',
      content: 'Greeting.',
      tool_calls: [
        { id: 'a', type: 'function', function: { name: 'greet', arguments: '{"name":"A"}' } },
        { id: 'b', type: 'function', function: { name: 'greet', arguments: '{"name":"B"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'a', content: 'Hello, A!' },
    { role: 'tool', tool_call_id: 'b', content: 'Hello, B!' },
  ];
  await provider.chat(two, [GREET_TOOL], { cache: { ...CACHE, stableMessages: 4 } });
  const [body] = server.chatRequests.map(request => request.body);
  // The results are one user turn of two blocks; the stable point ends after the first.
  t.deepEqual(breakpointsOf(body), ['tools[0]', 'system[0]', 'messages[2][0]']);
  t.truthy(body.messages[2].content[0].cache_control);
  t.is(body.messages[2].content[1].cache_control, undefined);
});

test('anthropic: the cache counts of a streamed answer are read, and input counts every token', async t => {
  const { server, provider } = await startProviderServer(t, 'anthropic', {});
  server
    .reply({ text: 'streamed', usage: { inputTokens: 3000, outputTokens: 7, cachedInputTokens: 2500, cacheWriteInputTokens: 400 } })
    .reply({ text: 'again', usage: { inputTokens: 3000, outputTokens: 7, cachedInputTokens: 2900 } });
  const first = await provider.chat(conversation, [GREET_TOOL], { cache: CACHE });
  t.deepEqual(first.usage, { inputTokens: 3000, outputTokens: 7, cachedInputTokens: 2500, cacheWriteInputTokens: 400 });
  // As the API sends them: input_tokens is what came after the last breakpoint.
  const second = await provider.chat(conversation, [GREET_TOOL], { cache: CACHE });
  t.deepEqual(second.usage, { inputTokens: 3000, outputTokens: 7, cachedInputTokens: 2900, cacheWriteInputTokens: 0 });
});

test('anthropic: the cache counts of a plain answer are read', async t => {
  const server = await startLlmServer('anthropic', { streams: false });
  t.teardown(() => server.close());
  const provider = createProvider(server.env());
  server.otherwise({ text: 'plain', usage: { inputTokens: 1200, outputTokens: 3, cachedInputTokens: 1000, cacheWriteInputTokens: 150 } });
  const result = await provider.chat(conversation, [], { cache: CACHE });
  t.deepEqual(result.usage, { inputTokens: 1200, outputTokens: 3, cachedInputTokens: 1000, cacheWriteInputTokens: 150 });
});

/** A provider whose log lines are kept. */
const withLog = async (t: Teardown, kind: LlmKind, env: Record<string, string> = {}) => {
  const server = await startLlmServer(kind);
  t.teardown(() => server.close());
  const logs: { event: string; fields: Readonly<Record<string, unknown>> }[] = [];
  const options: ProviderOptions = { log: (event, fields) => logs.push({ event, fields }) };
  return { server, provider: createProvider(server.env(env), options), logs };
};

test('openai: a stable prompt_cache_key per conversation and cache_prompt for llama.cpp; neither without hints', async t => {
  const { server, provider } = await withLog(t, 'openai');
  server.otherwise({ text: 'ok' });
  await provider.chat(conversation, [GREET_TOOL], { cache: CACHE });
  await provider.chat(conversation, [GREET_TOOL], { cache: { ...CACHE, stableMessages: 7 } });
  await provider.chat(conversation, [GREET_TOOL]);
  const [first, second, none] = server.chatRequests.map(request => request.body);
  t.is(first.prompt_cache_key, CACHE.key);
  t.is(second.prompt_cache_key, CACHE.key);
  t.true(first.cache_prompt);
  t.is(none.prompt_cache_key, undefined);
  t.is(none.cache_prompt, undefined);
  t.deepEqual(first.messages, none.messages, 'the messages themselves are the same');
});

test('openai: a server that refuses a cache field is asked again without it, and never sent it after; logged once', async t => {
  const { server, provider, logs } = await withLog(t, 'openai');
  server.fail(400, 'Unrecognized request argument supplied: cache_prompt').otherwise({ text: 'ok' });
  t.is((await provider.chat(conversation, [], { cache: CACHE })).message.content, 'ok');
  await provider.chat(conversation, [], { cache: CACHE });
  const bodies = server.chatRequests.map(request => request.body);
  t.deepEqual(
    bodies.map(body => [body.cache_prompt, body.prompt_cache_key]),
    [
      [true, CACHE.key],
      [undefined, CACHE.key],
      [undefined, CACHE.key],
    ],
  );
  t.deepEqual(logs.map(({ event, fields }) => [event, fields.field]), [['llm-field-refused', 'cache_prompt']]);
  server.fail(400, 'prompt_cache_key: unknown field').otherwise({ text: 'ok' });
  await provider.chat(conversation, [], { cache: CACHE });
  await provider.chat(conversation, [], { cache: CACHE });
  t.deepEqual(server.chatRequests.slice(3).map(request => request.body.prompt_cache_key), [CACHE.key, undefined, undefined]);
  // Any other 400 is the failure it is.
  server.fail(400, 'messages: too long');
  await t.throwsAsync(provider.chat(conversation, [], { cache: CACHE }), { message: /too long/ });
});

test('openai: cached_tokens of a streamed and of a plain answer are read', async t => {
  const { server, provider } = await startProviderServer(t, 'openai', {});
  server.reply({ text: 'streamed', usage: { inputTokens: 2006, outputTokens: 300, cachedInputTokens: 1920 } });
  const streamed = await provider.chat(conversation, [], { cache: CACHE });
  t.deepEqual(streamed.usage, { inputTokens: 2006, outputTokens: 300, cachedInputTokens: 1920 });
  t.true(server.chatRequests[0].body.stream_options.include_usage);
  const plain = await startLlmServer('openai', { streams: false });
  t.teardown(() => plain.close());
  plain.otherwise({ text: 'plain', usage: { inputTokens: 1500, outputTokens: 2, cachedInputTokens: 1024 } });
  const answer = await createProvider(plain.env()).chat(conversation, [], { cache: CACHE });
  t.deepEqual(answer.usage, { inputTokens: 1500, outputTokens: 2, cachedInputTokens: 1024 });
  // No details, no cached count: not a zero that was never reported.
  server.reply({ text: 'no details', usage: { inputTokens: 10, outputTokens: 1 } });
  t.deepEqual((await provider.chat(conversation, [])).usage, { inputTokens: 10, outputTokens: 1 });
});

test('ollama: keep_alive from FAE_KEEP_ALIVE, and nothing else asked; none by default', async t => {
  const { server, provider } = await startProviderServer(t, 'ollama', { FAE_KEEP_ALIVE: '30m' }, { withToken: false });
  server.otherwise({ text: 'ok', usage: { inputTokens: 40, outputTokens: 2 } });
  const result = await provider.chat(conversation, [], { cache: CACHE });
  t.deepEqual(result.usage, { inputTokens: 40, outputTokens: 2 }, 'Ollama reports no cached tokens');
  await provider.chat(conversation, []);
  const forever = createProvider({ LAL_HOST: server.url, FAE_KEEP_ALIVE: '-1' });
  await forever.chat(conversation, []);
  const unset = createProvider({ LAL_HOST: server.url });
  await unset.chat(conversation, [], { cache: CACHE });
  const bodies = server.chatRequests.map(request => request.body);
  t.deepEqual(bodies.map(body => body.keep_alive), ['30m', '30m', -1, undefined]);
  t.false(bodies.some(body => 'prompt_cache_key' in body || 'cache_prompt' in body));
});

test('anthropic: a gateway that refuses cache_control is asked again without it, and never sent it after', async t => {
  const { server, provider, logs } = await withLog(t, 'anthropic');
  server.fail(400, 'messages.0.content.0.cache_control: Extra inputs are not permitted').otherwise({ text: 'ok' });
  t.is((await provider.chat(conversation, [GREET_TOOL], { cache: CACHE })).message.content, 'ok');
  await provider.chat(conversation, [GREET_TOOL], { cache: CACHE });
  t.deepEqual(
    server.chatRequests.map(request => breakpointsOf(request.body).length),
    [3, 0, 0],
  );
  t.deepEqual(logs.map(({ event, fields }) => [event, fields.field]), [['llm-field-refused', 'cache_control']]);
});

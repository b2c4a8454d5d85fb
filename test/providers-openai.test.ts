// The OpenAI-compatible provider through the openai SDK over loopback HTTP:
// what it sends and what it returns.
import test from 'ava';
import type { ChatMessage } from '../providers/index.js';
import { TEST_TOKEN } from './support/llm-server.js';
import { GREET_TOOL, startProviderServer } from './support/provider-fixtures.js';

const greet = GREET_TOOL;

const start = (t: { teardown(fn: () => Promise<void>): void }, extra = {}) =>
  startProviderServer(t, 'openai', { LAL_MODEL: 'llama-test', ...extra });

test('a plain answer, with usage', async t => {
  const { server, provider } = await start(t);
  server.reply({ text: 'Hello there', usage: { inputTokens: 12, outputTokens: 3 } });
  const result = await provider.chat(
    [
      { role: 'system', content: 'You are fae.' },
      { role: 'user', content: 'hi' },
    ],
    [],
  );
  t.deepEqual(result, {
    message: { role: 'assistant', content: 'Hello there' },
    usage: { inputTokens: 12, outputTokens: 3 },
    stopReason: 'end_turn',
  });
  t.true(Object.isFrozen(result.message));
  const [request] = server.chatRequests;
  t.is(request.path, '/v1/chat/completions');
  t.is(request.headers.authorization, `Bearer ${TEST_TOKEN}`);
  t.deepEqual(request.body, {
    model: 'llama-test',
    max_tokens: 4096,
    stream: true,
    stream_options: { include_usage: true },
    messages: [
      { role: 'system', content: 'You are fae.' },
      { role: 'user', content: 'hi' },
    ],
  });
});

test('a tool call round trip: call, result, answer, with the exact request shape', async t => {
  const { server, provider } = await start(t);
  server
    .reply({ toolCalls: [{ id: 'call_7', name: 'greet', arguments: { name: 'Ada' } }] })
    .reply({ text: 'I greeted Ada.' });
  const transcript: ChatMessage[] = [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'greet Ada' },
  ];
  const first = await provider.chat(transcript, [greet]);
  t.deepEqual(first.message, {
    role: 'assistant',
    content: '',
    tool_calls: [{ id: 'call_7', type: 'function', function: { name: 'greet', arguments: '{"name":"Ada"}' } }],
  });
  t.is(first.stopReason, 'tool_use');
  transcript.push(first.message, { role: 'tool', tool_call_id: 'call_7', name: 'greet', content: 'Hello, Ada!' });
  const second = await provider.chat(transcript, [greet]);
  t.is(second.message.content, 'I greeted Ada.');
  t.is(second.message.tool_calls, undefined);

  t.deepEqual(server.chatRequests[0].body.tools, [
    {
      type: 'function',
      function: {
        name: 'greet',
        description: 'Greets someone',
        parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      },
    },
  ]);
  t.deepEqual(server.chatRequests[1].body.messages, [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'greet Ada' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_7', type: 'function', function: { name: 'greet', arguments: '{"name":"Ada"}' } }],
    },
    { role: 'tool', tool_call_id: 'call_7', content: 'Hello, Ada!' },
  ]);
});

test('two tool calls in one turn, answered by two results', async t => {
  const { server, provider } = await start(t);
  server
    .reply({
      text: 'Greeting both.',
      toolCalls: [
        { name: 'greet', arguments: { name: 'Ada' } },
        { name: 'greet', arguments: { name: 'Bob' } },
      ],
    })
    .reply({ text: 'Done.' });
  const transcript: ChatMessage[] = [{ role: 'user', content: 'greet Ada and Bob' }];
  const { message } = await provider.chat(transcript, [greet]);
  t.is(message.content, 'Greeting both.');
  const calls = message.tool_calls ?? [];
  t.deepEqual(
    calls.map(c => [c.function.name, JSON.parse(c.function.arguments)]),
    [
      ['greet', { name: 'Ada' }],
      ['greet', { name: 'Bob' }],
    ],
  );
  t.not(calls[0].id, calls[1].id);
  transcript.push(
    message,
    ...calls.map((c, i): ChatMessage => ({ role: 'tool', tool_call_id: c.id, content: `result ${i}` })),
  );
  t.is((await provider.chat(transcript, [greet])).message.content, 'Done.');
  const sent = server.chatRequests[1].body.messages;
  t.deepEqual(sent[1], {
    role: 'assistant',
    content: 'Greeting both.',
    tool_calls: calls.map(c => ({ id: c.id, type: 'function', function: { ...c.function } })),
  });
  t.deepEqual(sent.slice(2), [
    { role: 'tool', tool_call_id: calls[0].id, content: 'result 0' },
    { role: 'tool', tool_call_id: calls[1].id, content: 'result 1' },
  ]);
});

test('stored arguments that are not JSON are sent as written and never throw', async t => {
  const { server, provider } = await start(t);
  server.reply({ text: 'ok' });
  await provider.chat(
    [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'greet', arguments: '{name: Ada' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'error: invalid JSON arguments' },
    ],
    [greet],
  );
  t.is(server.chatRequests[0].body.messages[1].tool_calls[0].function.arguments, '{name: Ada');
});

test('LAL_MAX_TOKENS is sent, and a reply cut off by it says so', async t => {
  const { server, provider } = await start(t, { LAL_MAX_TOKENS: '64' });
  server.reply({ text: 'partial', stopReason: 'max_tokens', usage: null });
  const result = await provider.chat([{ role: 'user', content: 'long story' }], []);
  t.is(server.chatRequests[0].body.max_tokens, 64);
  t.is(result.stopReason, 'max_tokens');
  t.is(result.usage, undefined);
});

// The Anthropic provider through @anthropic-ai/sdk over loopback HTTP: what
// it sends (each system message a system block, tool_use and merged tool_result turns, no empty
// turns) and what it returns.
import test from 'ava';
import type { ChatMessage } from '../providers/index.js';
import { TEST_TOKEN } from './support/llm-server.js';
import { GREET_TOOL, startProviderServer } from './support/provider-fixtures.js';

const greet = GREET_TOOL;

const start = (t: { teardown(fn: () => Promise<void>): void }, extra = {}) =>
  startProviderServer(t, 'anthropic', { LAL_MODEL: 'claude-test', ...extra });

test('a plain answer, with usage; every system message a block of system, in order', async t => {
  const { server, provider } = await start(t);
  server.reply({ text: 'Hello there', usage: { inputTokens: 20, outputTokens: 4 } });
  const result = await provider.chat(
    [
      { role: 'system', content: 'You are fae.' },
      { role: 'user', content: 'hi' },
      { role: 'system', content: 'Be brief.' },
    ],
    [],
  );
  t.deepEqual(result, {
    message: { role: 'assistant', content: 'Hello there' },
    usage: { inputTokens: 20, outputTokens: 4 },
    stopReason: 'end_turn',
  });
  const [request] = server.chatRequests;
  t.is(request.path, '/anthropic.com/v1/messages');
  t.is(request.headers.authorization, `Bearer ${TEST_TOKEN}`);
  t.truthy(request.headers['anthropic-version']);
  t.deepEqual(request.body, {
    model: 'claude-test',
    max_tokens: 4096,
    stream: true,
    system: [
      { type: 'text', text: 'You are fae.' },
      { type: 'text', text: 'Be brief.' },
    ],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  });
});

test('a tool call round trip: call, result, answer, with the exact request shape', async t => {
  const { server, provider } = await start(t);
  server
    .reply({ text: 'Let me greet.', toolCalls: [{ id: 'toolu_1', name: 'greet', arguments: { name: 'Ada' } }] })
    .reply({ text: 'I greeted Ada.' });
  const transcript: ChatMessage[] = [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'greet Ada' },
  ];
  const first = await provider.chat(transcript, [greet]);
  t.deepEqual(first.message, {
    role: 'assistant',
    content: 'Let me greet.',
    tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'greet', arguments: '{"name":"Ada"}' } }],
  });
  t.is(first.stopReason, 'tool_use');
  transcript.push(first.message, { role: 'tool', tool_call_id: 'toolu_1', name: 'greet', content: 'Hello, Ada!' });
  const second = await provider.chat(transcript, [greet]);
  t.deepEqual(second.message, { role: 'assistant', content: 'I greeted Ada.' });

  t.deepEqual(server.chatRequests[0].body.tools, [
    {
      name: 'greet',
      description: 'Greets someone',
      input_schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    },
  ]);
  t.deepEqual(server.chatRequests[1].body, {
    model: 'claude-test',
    max_tokens: 4096,
    stream: true,
    system: [{ type: 'text', text: 'sys' }],
    tools: server.chatRequests[0].body.tools,
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'greet Ada' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me greet.' },
          { type: 'tool_use', id: 'toolu_1', name: 'greet', input: { name: 'Ada' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Hello, Ada!' }] },
    ],
  });
});

test('two tool calls in one turn: their results travel as one user turn', async t => {
  const { server, provider } = await start(t);
  server
    .reply({
      toolCalls: [
        { name: 'greet', arguments: { name: 'Ada' } },
        { name: 'greet', arguments: { name: 'Bob' } },
      ],
    })
    .reply({ text: 'Done.' });
  const transcript: ChatMessage[] = [{ role: 'user', content: 'greet Ada and Bob' }];
  const { message } = await provider.chat(transcript, [greet]);
  const calls = message.tool_calls ?? [];
  t.is(message.content, '');
  t.deepEqual(
    calls.map(c => JSON.parse(c.function.arguments).name),
    ['Ada', 'Bob'],
  );
  t.not(calls[0].id, calls[1].id);
  transcript.push(
    message,
    ...calls.map((c, i): ChatMessage => ({ role: 'tool', tool_call_id: c.id, content: `result ${i}` })),
  );
  t.is((await provider.chat(transcript, [greet])).message.content, 'Done.');
  t.deepEqual(server.chatRequests[1].body.messages.slice(1), [
    {
      role: 'assistant',
      content: calls.map(c => ({ type: 'tool_use', id: c.id, name: 'greet', input: JSON.parse(c.function.arguments) })),
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: calls[0].id, content: 'result 0' },
        { type: 'tool_result', tool_use_id: calls[1].id, content: 'result 1' },
      ],
    },
  ]);
});

test('no empty turns: an empty assistant reply is dropped and the user turns around it merge', async t => {
  const { server, provider } = await start(t);
  server.reply({ text: 'ok' });
  await provider.chat(
    [
      { role: 'user', content: 'first' },
      { role: 'assistant', content: '' },
      { role: 'user', content: 'second' },
      { role: 'user', content: '' },
    ],
    [],
  );
  t.deepEqual(server.chatRequests[0].body.messages, [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'first' },
        { type: 'text', text: 'second' },
      ],
    },
  ]);
});

test('stored arguments that are not valid JSON never make a later request throw', async t => {
  const { server, provider } = await start(t);
  server.reply({ text: 'ok' });
  const result = await provider.chat(
    [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'greet', arguments: '{name: Ada' } },
          { id: 'c2', type: 'function', function: { name: 'greet', arguments: '[1,2]' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'error: invalid JSON arguments' },
      { role: 'tool', tool_call_id: 'c2', content: 'error: arguments must be an object' },
    ],
    [greet],
  );
  t.is(result.message.content, 'ok');
  t.deepEqual(
    server.chatRequests[0].body.messages[1].content.map((b: { input: unknown }) => b.input),
    [{}, {}],
  );
});

test('LAL_MAX_TOKENS is sent, and a reply cut off by it says so', async t => {
  const { server, provider } = await start(t, { LAL_MAX_TOKENS: '64' });
  server.reply({ text: 'partial', stopReason: 'max_tokens' });
  const result = await provider.chat([{ role: 'user', content: 'long story' }], []);
  t.is(server.chatRequests[0].body.max_tokens, 64);
  t.is(result.stopReason, 'max_tokens');
});

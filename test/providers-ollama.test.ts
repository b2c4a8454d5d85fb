// The Ollama provider through the ollama client over loopback HTTP: what it
// sends (arguments as objects, results carrying their tool's name) and what
// it returns (synthetic unique call ids).
import test from 'ava';
import type { ChatMessage, ToolSchema } from '../providers/index.js';
import { GREET_TOOL, startProviderServer } from './support/provider-fixtures.js';

const greet = GREET_TOOL;

const shout: ToolSchema = {
  type: 'function',
  function: {
    name: 'shout',
    description: 'Shouts a text',
    parameters: { type: 'object', properties: { text: { type: 'string' } } },
  },
};

// No token: a local Ollama needs none.
const start = (t: { teardown(fn: () => Promise<void>): void }, extra = {}) =>
  startProviderServer(t, 'ollama', { LAL_MODEL: 'qwen-test', ...extra }, { withToken: false });

test('a plain answer, with usage', async t => {
  const { server, provider } = await start(t);
  server.reply({ text: 'Hello there', usage: { inputTokens: 30, outputTokens: 6 } });
  const result = await provider.chat(
    [
      { role: 'system', content: 'You are fae.' },
      { role: 'user', content: 'hi' },
    ],
    [],
  );
  t.deepEqual(result, {
    message: { role: 'assistant', content: 'Hello there' },
    usage: { inputTokens: 30, outputTokens: 6 },
    stopReason: 'end_turn',
  });
  const [request] = server.chatRequests;
  t.is(request.path, '/api/chat');
  t.false('authorization' in request.headers);
  t.deepEqual(request.body, {
    model: 'qwen-test',
    stream: true,
    options: { num_ctx: 32000, num_predict: 4096 },
    messages: [
      { role: 'system', content: 'You are fae.' },
      { role: 'user', content: 'hi' },
    ],
  });
});

test('a tool call round trip: call, result, answer, with the exact request shape', async t => {
  const { server, provider } = await start(t);
  server.reply({ toolCalls: [{ name: 'greet', arguments: { name: 'Ada' } }] }).reply({ text: 'I greeted Ada.' });
  const transcript: ChatMessage[] = [{ role: 'user', content: 'greet Ada' }];
  const first = await provider.chat(transcript, [greet]);
  const [call] = first.message.tool_calls ?? [];
  t.deepEqual(first.message, {
    role: 'assistant',
    content: '',
    tool_calls: [{ id: call.id, type: 'function', function: { name: 'greet', arguments: '{"name":"Ada"}' } }],
  });
  t.regex(call.id, /^ollama_call_/);
  // The agent's tool result carries only the call id: the provider finds the name.
  transcript.push(first.message, { role: 'tool', tool_call_id: call.id, content: 'Hello, Ada!' });
  const second = await provider.chat(transcript, [greet]);
  t.deepEqual(second.message, { role: 'assistant', content: 'I greeted Ada.' });

  t.deepEqual(server.chatRequests[1].body, {
    model: 'qwen-test',
    stream: true,
    options: { num_ctx: 32000, num_predict: 4096 },
    tools: [
      {
        type: 'function',
        function: {
          name: 'greet',
          description: 'Greets someone',
          parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        },
      },
    ],
    messages: [
      { role: 'user', content: 'greet Ada' },
      { role: 'assistant', content: '', tool_calls: [{ function: { name: 'greet', arguments: { name: 'Ada' } } }] },
      { role: 'tool', content: 'Hello, Ada!', tool_name: 'greet' },
    ],
  });
});

test('two tool calls in one turn get unique ids, and each result keeps its tool name', async t => {
  const { server, provider } = await start(t);
  server
    .reply({
      toolCalls: [
        { name: 'greet', arguments: { name: 'Ada' } },
        { name: 'shout', arguments: { text: 'hey' } },
      ],
    })
    .reply({ toolCalls: [{ name: 'greet', arguments: { name: 'Cy' } }] })
    .reply({ text: 'Done.' });
  const transcript: ChatMessage[] = [{ role: 'user', content: 'go' }];
  const first = await provider.chat(transcript, [greet, shout]);
  const calls = first.message.tool_calls ?? [];
  t.deepEqual(
    calls.map(c => c.function.name),
    ['greet', 'shout'],
  );
  transcript.push(
    first.message,
    { role: 'tool', tool_call_id: calls[0].id, content: 'Hello, Ada!' },
    { role: 'tool', tool_call_id: calls[1].id, content: 'HEY' },
  );
  const second = await provider.chat(transcript, [greet, shout]);
  const ids = [...calls, ...(second.message.tool_calls ?? [])].map(c => c.id);
  t.is(new Set(ids).size, 3, 'ids are unique across turns');
  transcript.push(second.message, { role: 'tool', tool_call_id: ids[2], content: 'Hello, Cy!' });
  await provider.chat(transcript, [greet, shout]);
  t.deepEqual(server.chatRequests[2].body.messages.filter((m: { role: string }) => m.role === 'tool'), [
    { role: 'tool', content: 'Hello, Ada!', tool_name: 'greet' },
    { role: 'tool', content: 'HEY', tool_name: 'shout' },
    { role: 'tool', content: 'Hello, Cy!', tool_name: 'greet' },
  ]);
});

test('stored arguments that are not valid JSON are sent as an empty object, never throw', async t => {
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
  t.deepEqual(server.chatRequests[0].body.messages[1].tool_calls, [{ function: { name: 'greet', arguments: {} } }]);
});

test('LAL_MAX_TOKENS becomes num_predict, and LAL_AUTH_TOKEN a bearer header', async t => {
  const { server, provider } = await start(t, { LAL_MAX_TOKENS: '64', LAL_AUTH_TOKEN: 'ollama-cloud-key' });
  server.reply({ text: 'partial', stopReason: 'max_tokens' });
  const result = await provider.chat([{ role: 'user', content: 'long story' }], []);
  t.deepEqual(server.chatRequests[0].body.options, { num_ctx: 32000, num_predict: 64 });
  t.is(server.chatRequests[0].headers.authorization, 'Bearer ollama-cloud-key');
  t.is(result.stopReason, 'max_tokens');
});

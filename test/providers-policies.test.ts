// The pure pieces under the providers: the truncation window, the retry
// policy, and the retrying fetch's handling of retry-after, over real HTTP.
import test from 'ava';
import { createProvider, truncateMessages, type ChatMessage } from '../providers/index.js';
import { backoffDelay, isRetryableStatus, parseRetryAfter } from '../providers/retry-policy.js';
import { windowMessages } from '../providers/truncate.js';
import { startLlmServer } from './support/llm-server.js';

const sys: ChatMessage = { role: 'system', content: 'sys' };
const user = (content: string): ChatMessage => ({ role: 'user', content });
const said = (content: string): ChatMessage => ({ role: 'assistant', content });
const call = (id: string): ChatMessage => ({
  role: 'assistant',
  content: '',
  tool_calls: [{ id, type: 'function', function: { name: 't', arguments: '{}' } }],
});
const result = (id: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content: `r${id}` });

test('truncation: no limit, or a short transcript, passes through unchanged', t => {
  const messages = [sys, user('a'), said('b')];
  t.is(truncateMessages(messages, undefined), messages);
  t.is(truncateMessages(messages, 2), messages);
});

test('truncation: keeps every leading system message and the last turns from a user turn', t => {
  const messages = [sys, { role: 'system' as const, content: 'more' }, user('1'), said('2'), user('3'), said('4')];
  t.deepEqual(truncateMessages(messages, 2), [messages[0], messages[1], user('3'), said('4')]);
  // A window of 3 would open at said('2'): it opens at the next user turn instead.
  t.deepEqual(truncateMessages(messages, 3), [messages[0], messages[1], user('3'), said('4')]);
});

test('truncation is an exact ceiling: a long turn keeps its user message and the latest whole call/result pairs', t => {
  const messages = [sys, user('old'), said('x'), user('task'), call('1'), result('1'), call('2'), result('2')];
  t.deepEqual(truncateMessages(messages, 3), [sys, user('task'), call('2'), result('2')]);
  t.deepEqual(truncateMessages(messages, 4), [sys, user('task'), call('2'), result('2')]);
  t.deepEqual(truncateMessages(messages, 5), [sys, user('task'), call('1'), result('1'), call('2'), result('2')]);
  // A pair is never split: with room for one more message only the task stays.
  t.deepEqual(truncateMessages(messages, 2), [sys, user('task')]);
});

test('truncation: with no user turn at all, never opens with a tool result', t => {
  const messages = [sys, call('1'), result('1'), call('2'), result('2'), result('3')];
  const kept = truncateMessages(messages, 4);
  t.is(kept[0], sys);
  t.not(kept[1].role, 'tool');
});

test('truncation: a long conversation is windowed in a logarithmic number of trials, opening where reaching back turn by turn would', t => {
  // 2,000 turns of one to four messages.
  const messages: ChatMessage[] = [sys];
  for (let i = 0; i < 2000; i += 1) {
    messages.push(user(`q${i}`));
    for (let k = 0; k < i % 4; k += 1) messages.push(said(`a${i}.${k}`));
  }
  let trials = 0;
  const max = 777;
  const kept = windowMessages(messages, rest => {
    trials += 1;
    return rest.length <= max;
  });
  // The longest end within the ceiling that opens at a user message.
  let start = messages.length - max;
  while (messages[start].role !== 'user') start += 1;
  t.deepEqual(kept, [sys, ...messages.slice(start)]);
  t.true(Object.isFrozen(kept));
  // The whole, the latest turn, then halving over 2,000 user messages.
  t.true(trials <= 2 + Math.ceil(Math.log2(2000)), `${trials} trials`);
});

test('retry policy: 408, 409, 429 and 5xx but 501 are retried; other statuses are not', t => {
  t.deepEqual(
    [400, 401, 403, 404, 408, 409, 422, 429, 500, 501, 502, 503, 529].map(isRetryableStatus),
    [false, false, false, false, true, true, false, true, true, false, true, true, true],
  );
});

test('retry policy: retry-after as seconds, as a date, and retry-after-ms', t => {
  const headers = (record: Record<string, string>) => new Headers(record);
  const now = Date.UTC(2025, 0, 1, 0, 0, 0);
  t.is(parseRetryAfter(headers({}), now), undefined);
  t.is(parseRetryAfter(headers({ 'retry-after': '3' }), now), 3000);
  t.is(parseRetryAfter(headers({ 'retry-after': '0.5' }), now), 500);
  t.is(parseRetryAfter(headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:10 GMT' }), now), 10_000);
  t.is(parseRetryAfter(headers({ 'retry-after-ms': '250', 'retry-after': '3' }), now), 250);
  t.is(parseRetryAfter(headers({ 'retry-after': 'soon' }), now), undefined);
});

test('retry policy: backoff doubles, is capped, and jitters within its upper half', t => {
  t.is(backoffDelay(0, () => 0), 250);
  t.is(backoffDelay(0, () => 1), 500);
  t.is(backoffDelay(1, () => 0), 500);
  t.is(backoffDelay(3, () => 1), 4000);
  t.is(backoffDelay(20, () => 1), 8000);
});

test('a server asking to wait longer than a minute is not retried', async t => {
  const server = await startLlmServer('openai');
  t.teardown(() => server.close());
  server.fail(429, 'come back tomorrow', { 'retry-after': '86400' }).reply({ text: 'unused' });
  const sleeps: number[] = [];
  const provider = createProvider(server.env(), { sleep: async ms => void sleeps.push(ms) });
  await t.throwsAsync(provider.chat([user('hi')], []), { message: /HTTP 429: come back tomorrow/ });
  t.is(server.chatRequests.length, 1);
  t.deepEqual(sleeps, []);
});

test('a 529 overload from Anthropic is retried like a 5xx', async t => {
  const server = await startLlmServer('anthropic');
  t.teardown(() => server.close());
  server.fail(529, 'Overloaded').fail(503).reply({ text: 'third time' });
  const sleeps: number[] = [];
  const provider = createProvider(server.env(), { sleep: async ms => void sleeps.push(ms), random: () => 0 });
  t.is((await provider.chat([user('hi')], [])).message.content, 'third time');
  t.deepEqual(sleeps, [250, 500]);
});

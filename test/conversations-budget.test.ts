// The context budget (FAE_CONTEXT_TOKENS) and the exact message ceiling
// (LAL_MAX_MESSAGES), measured on every request fae makes.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { E } from '@endo/far';
import { startFaeInDaemon } from './support/fae-harness.js';
import { makeScriptedProvider, type RecordedRequest } from './support/scripted-provider.js';
import { messageText, specialNames } from './support/daemon.js';
import { estimateRequest } from '../src/conversations/requests/tokens.js';

/** Generous: the machine running the tests may be busy (no timing is asserted). */
const WAIT_MS = 30_000;
/** A whole test's bound, instead of ava's 10 s of silence. */
const BUSY_TIMEOUT_MS = 300_000;

const isSummaryRequest = (request: RecordedRequest) =>
  request.messages[0].content.startsWith('You keep the memory of a conversation');

const padding = 'lorem ipsum dolor sit amet '.repeat(6);

/**
 * fae with a FAE_CONTEXT_TOKENS of `budget`, asked `count` questions at
 * once by its host, whose summaries `summary` writes; resolves once every
 * one is handled.
 */
const askMany = async (t: ExecutionContext, { budget, count, summary }: { budget: number; count: number; summary: (request: RecordedRequest) => string }) => {
  const llm = makeScriptedProvider();
  const answer = (request: RecordedRequest) =>
    isSummaryRequest(request) ? { text: summary(request) } : { text: `Answer to ${request.messages.at(-1)?.content.slice(0, 40)} ${padding}` };
  for (let i = 0; i < count * 2; i += 1) llm.push(answer);
  const started = await startFaeInDaemon({
    provider: llm.provider,
    env: { FAE_CONTEXT_TOKENS: String(budget) },
  });
  const { host, controller, nextFromFae, daemon } = started;
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  // All at once: following HOST's ever longer inbox after each message
  // would cost more than fae's own work.
  for (let i = 1; i <= count; i += 1) {
    await E(host).send('fae', [`question ${i}: ${padding}`], [], []);
  }
  while ((await E(controller).status()).handledMessages < count) {
    await new Promise(resolve => setTimeout(resolve, 50));
  }
  return { ...started, llm };
};

test('500 messages with a small FAE_CONTEXT_TOKENS: no request passes it, old turns become a summary, the question is always there', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const budget = 3000;
  const count = 500;
  const { host, controller, logs, llm } = await askMany(t, {
    budget,
    count,
    summary: request => `Summary: the correspondent asked ${request.messages.length} things. ${padding}`,
  });
  const answers = (await E(host).listMessages()).filter((m: { strings?: string[] }) =>
    m.strings?.[0]?.startsWith('Answer to'),
  );
  t.is(answers.length, count);
  t.regex(messageText(answers.at(-1)), new RegExp(`^Answer to Message #\\d+ from ${specialNames.host}: question 500`));
  const turnRequests = llm.requests.filter(r => !isSummaryRequest(r));
  const summaryRequests = llm.requests.filter(isSummaryRequest);
  t.is(turnRequests.length, count);
  t.true(summaryRequests.length > 0);
  let largest = 0;
  for (const request of llm.requests) {
    largest = Math.max(largest, estimateRequest(request.messages, request.tools));
  }
  t.true(largest <= budget, `the largest request took ${largest} tokens`);
  turnRequests.forEach((request, i) => {
    t.true(request.messages.at(-1)?.content.startsWith(`Message #`) && request.messages.at(-1)?.content.includes(`question ${i + 1}:`));
  });
  t.true(turnRequests.at(-1)!.messages[1].content.startsWith('Summary of your earlier conversation'));
  t.true(logs.some(line => /conversation-compacted .*turns=\d+ inputTokens=0 outputTokens=0/.test(line)));
  const status = await E(controller).status();
  t.true(status.conversationSizes[0].summarized);
});

test('LAL_MAX_MESSAGES=4 is an exact ceiling, also inside a turn of four tool calls', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const llm = makeScriptedProvider();
  const turn = [
    { toolCalls: [{ name: 'list', arguments: {} }] },
    { toolCalls: [{ name: 'list', arguments: {} }] },
    { toolCalls: [{ name: 'list', arguments: {} }] },
    { toolCalls: [{ name: 'list', arguments: {} }] },
    { text: 'done' },
  ];
  llm.push(...turn, ...turn, { text: 'short' }, { text: 'short again' });
  const { host, nextFromFae, daemon } = await startFaeInDaemon({
    provider: llm.provider,
    env: { LAL_MAX_MESSAGES: '4' },
  });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  for (const text of ['four calls', 'four more', 'and a short one', 'and another']) {
    await E(host).send('fae', [text], [], []);
    await nextFromFae(WAIT_MS);
  }
  t.is(llm.requests.length, 12);
  for (const request of llm.requests) {
    const rest = request.messages.filter(m => m.role !== 'system');
    t.true(rest.length <= 4, `a request carried ${rest.length} messages`);
    t.is(rest[0].role, 'user');
    // Every tool result follows its call.
    rest.forEach((m, i) => {
      if (m.role === 'tool') t.true(rest.slice(0, i).some(p => p.tool_calls?.some(c => c.id === m.tool_call_id)));
    });
  }
  // The third request of a long turn keeps the task and the latest pair.
  const third = llm.requests[2].messages.filter(m => m.role !== 'system');
  t.deepEqual(third.map(m => m.role), ['user', 'assistant', 'tool']);
  t.is(third[0].content, `Message #1 from ${specialNames.host}: four calls`);
  // A short turn after long ones still opens at its own user message.
  t.is(llm.requests[11].messages.filter(m => m.role !== 'system')[0].role, 'user');
});

test('a turn that alone outgrows FAE_CONTEXT_TOKENS keeps its user message and its latest whole call/result pairs', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const budget = 3500;
  const lookup = { toolCalls: [{ name: 'lookup', arguments: { petName: 'big' } }] };
  const llm = makeScriptedProvider([lookup, lookup, lookup, lookup, { text: 'read it four times' }]);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({
    provider: llm.provider,
    env: { FAE_CONTEXT_TOKENS: String(budget) },
    introducedNames: { big: 'big' },
    prepare: async h => {
      await E(h).storeValue('x'.repeat(2400), 'big');
    },
  });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  await E(host).send('fae', ['read big four times'], [], []);
  t.is(messageText(await nextFromFae(WAIT_MS)), 'read it four times');
  t.is(llm.requests.length, 5);
  for (const request of llm.requests) {
    t.true(estimateRequest(request.messages, request.tools) <= budget);
    const rest = request.messages.filter(m => m.role !== 'system');
    t.is(rest[0].content, `Message #1 from ${specialNames.host}: read big four times`);
  }
  const last = llm.requests[4].messages.filter(m => m.role !== 'system');
  t.true(last.length < 9, 'older pairs of the turn were left out');
  t.is(last.at(-1)?.role, 'tool');
  t.is(last.at(-2)?.tool_calls?.[0].id, last.at(-1)?.tool_call_id);
});

test('a summary the model cannot write is not asked for at every request: each failure waits twice as many turns', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const budget = 3000;
  const count = 60;
  // The model never manages a summary: it answers with nothing.
  const { logs, llm } = await askMany(t, { budget, count, summary: () => '' });
  const turnRequests = llm.requests.filter(r => !isSummaryRequest(r));
  const summaryRequests = llm.requests.filter(isSummaryRequest);
  t.is(turnRequests.length, count, 'every message answered');
  // Tried, then after 1, 2, 4, 8, 16… more turns: a handful, not one per request.
  const firstTry = llm.requests.findIndex(isSummaryRequest);
  t.true(firstTry > 0);
  const turnsSinceFirst = turnRequests.length - llm.requests.slice(0, firstTry).filter(r => !isSummaryRequest(r)).length;
  t.true(summaryRequests.length >= 3, `${summaryRequests.length} summary requests`);
  t.true(summaryRequests.length <= Math.ceil(Math.log2(turnsSinceFirst + 1)) + 1, `${summaryRequests.length} summary requests over ${turnsSinceFirst} turns`);
  t.true(logs.some(line => /conversation-compaction-failed .*retryAfterTurns=4/.test(line)));
  // The window kept every request within the budget meanwhile.
  for (const request of turnRequests) t.true(estimateRequest(request.messages, request.tools) <= budget);
});

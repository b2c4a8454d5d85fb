// A prefix that stays the same (issue 23, part 1): within a conversation,
// each model request starts with exactly what the request before it sent,
// so a provider's prompt cache (Anthropic's breakpoints, OpenAI's
// automatic cache, llama.cpp's and Ollama's KV reuse) finds it again. The
// only breaks are a compaction (the summary replaces old turns) and a
// change of the tools offered; after either, the new prefix holds again.
//
// "Prefix", precisely. A request is a list of items, in the order a
// provider reads them: each tool schema, then each message, each as JSON.
// The rule is that the previous request, less the trailing part of
// its last user turn, is a prefix of the next one; the trailing part of a
// turn changes only when that turn alone outgrows the window (it is then
// cut inside the turn), which no turn here does. So the test asserts the
// strict form: every item of the previous request is, byte for byte, the
// item at the same place of the next one. It does so three times: on the
// requests as fae hands them to its provider (canonical JSON, keys sorted),
// and on the bodies Anthropic's and OpenAI's adapters put on the wire when
// the same requests are sent through them to loopback servers (the JSON as
// sent; Anthropic's cache markers are left out: they move on to the newest
// block with every request, and are not part of what the API caches).
import test from 'ava';
import { createProvider } from '../providers/index.js';
import type { RecordedRequest } from './support/scripted-provider.js';
import { startLlmServer } from './support/llm-server.js';
import { canonical, converse, isSummaryRequest, MESSAGES, SECRET, turnRequests } from './support/prefix-conversation.js';

/** A whole test's bound, instead of ava's 10 s of silence: the machine may be busy. */
const BUSY_TIMEOUT_MS = 300_000;

/** The request as fae hands it to its provider. */
const contractItems = ({ tools, messages }: RecordedRequest) => [...tools.map(canonical), ...messages.map(canonical)];

// `any`: wire JSON, indexed freely.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

/** JSON as sent, without Anthropic's cache markers. */
const unmarked = (value: unknown) => JSON.stringify(value, (key, inner: unknown) => (key === 'cache_control' ? undefined : inner));

/** Anthropic reads tools, then system, then messages. */
const anthropicItems = (body: Body): string[] =>
  [...(body.tools ?? []), ...(body.system ?? []), ...body.messages].map(unmarked);

/** OpenAI reads tools, then messages. */
const openAIItems = (body: Body): string[] => [...(body.tools ?? []), ...body.messages].map(item => JSON.stringify(item));

/** The bodies a real adapter puts on the wire for `requests` (each sent with its cache hints). */
const onTheWire = async (kind: 'anthropic' | 'openai', requests: readonly RecordedRequest[]): Promise<Body[]> => {
  const server = await startLlmServer(kind);
  try {
    server.otherwise({ text: 'ok' });
    const provider = createProvider(server.env());
    for (const { messages, tools, cache } of requests) {
      await provider.chat(messages, tools, cache === undefined ? {} : { cache });
    }
    return server.chatRequests.map(request => request.body);
  } finally {
    await server.close();
  }
};

const startsWith = (items: readonly string[], prefix: readonly string[]) =>
  prefix.length <= items.length && prefix.every((item, i) => item === items[i]);

test('over 100 messages with tool calls, an adoption and two compactions, each request starts with the one before it', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const { requests } = await converse({ FAE_CONTEXT_TOKENS: '6000' }, MESSAGES);
  const turns = turnRequests(requests);
  t.deepEqual(
    turns.flatMap(({ why }) => (why === undefined ? [] : [why])).sort(),
    ['compaction', 'compaction', 'tools'],
    'two compactions and the adoption, and nothing else',
  );
  const [anthropic, openai] = await Promise.all([
    onTheWire('anthropic', turns.map(turn => turn.request)),
    onTheWire('openai', turns.map(turn => turn.request)),
  ]);
  let checked = 0;
  turns.forEach(({ request, why }, at) => {
    if (at === 0 || why !== undefined) return;
    const before = turns[at - 1].request;
    t.true(startsWith(contractItems(request), contractItems(before)), `request ${at} does not start with the one before`);
    t.true(startsWith(anthropicItems(anthropic[at]), anthropicItems(anthropic[at - 1])), `anthropic: request ${at}`);
    t.true(startsWith(openAIItems(openai[at]), openAIItems(openai[at - 1])), `openai: request ${at}`);
    checked += 1;
  });
  t.true(checked > MESSAGES, `${checked} requests checked`);
  // The secret never went back to the model, in its turn or after.
  t.false(requests.some(request => JSON.stringify(request.messages).includes(SECRET)));
});

test('every request carries its conversation’s cache key and, as its stable point, the whole request', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const { requests, hostId } = await converse({ FAE_CONTEXT_TOKENS: '6000' }, 30);
  const turns = turnRequests(requests).map(turn => turn.request);
  const keys = new Set(turns.map(request => request.cache?.key));
  t.is(keys.size, 1, 'one conversation, one key');
  const [key] = keys;
  t.regex(key ?? '', /^fae-[0-9a-f]{32}$/);
  t.false(hostId.includes(key!.slice(4, 12)), 'the key is a hash, not the correspondent’s id');
  for (const request of turns) t.is(request.cache?.stableMessages, request.messages.length);
  // Summaries are not repeated: they ask for no caching.
  t.true(requests.filter(isSummaryRequest).every(request => request.cache === undefined));
  const bodies = await onTheWire('anthropic', turns);
  for (const body of bodies) {
    const last = body.messages.at(-1).content.at(-1);
    t.deepEqual(last.cache_control, { type: 'ephemeral' }, 'the newest block is the stable point');
    t.deepEqual(body.system[0].cache_control, { type: 'ephemeral' });
    t.deepEqual(body.tools.at(-1).cache_control, { type: 'ephemeral' });
  }
});

test('with LAL_MAX_MESSAGES, the window stays put until it is full, then moves on by half', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const ceiling = 12;
  const count = 36;
  const { requests } = await converse({ LAL_MAX_MESSAGES: String(ceiling) }, count);
  const turns = turnRequests(requests);
  const moves = turns.filter(turn => turn.why === 'window').length;
  t.log(`${moves} moves in ${turns.length} requests`);
  turns.forEach(({ request, why }, at) => {
    const rest = request.messages.filter(m => m.role !== 'system');
    t.true(rest.length <= ceiling, `request ${at} carries ${rest.length} messages`);
    if (at === 0) return;
    const before = turns[at - 1].request;
    if (why === undefined) t.true(startsWith(contractItems(request), contractItems(before)), `request ${at} does not start with the one before`);
  });
  // Cut afresh from the front, the window would move with nearly every request.
  t.true(moves > 0);
  t.true(moves < turns.length / 3, `${moves} moves in ${turns.length} requests`);
});

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
import { E } from '@endo/far';
import { createProvider } from '../providers/index.js';
import { startFaeInDaemon } from './support/fae-harness.js';
import { makeScriptedProvider, lastUserWords, type RecordedRequest, type ScriptedStep } from './support/scripted-provider.js';
import { makeShippedTool } from './support/tool-caplets.js';
import { startLlmServer } from './support/llm-server.js';

/** A whole test's bound, instead of ava's 10 s of silence: the machine may be busy. */
const BUSY_TIMEOUT_MS = 300_000;
const MESSAGES = 100;
/** The message that mails fae a tool to adopt. */
const ADOPTION = 40;
/** The message whose tool result carries a secret (redacted when stored). */
const SECRET_LOOKUP = 20;
const SECRET = 'sk-prefix-test-0123456789abcdef';

const padding = 'lorem ipsum dolor sit amet '.repeat(4);

const isSummaryRequest = (request: RecordedRequest) =>
  request.messages[0].content.startsWith('You keep the memory of a conversation');

/** JSON with every object's keys sorted: the same value, the same text. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );

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

/** The number of the message a turn's request answers, from its heading. */
const numberOf = (request: RecordedRequest) =>
  Number(/^Message #(\d+)/.exec(request.messages.filter(m => m.role === 'user').at(-1)?.content ?? '')?.[1]);

/** Which question a turn's request answers. */
const questionOf = (request: RecordedRequest) => Number(/question (\d+)/.exec(lastUserWords(request.messages))?.[1]);

/**
 * The model: a summary when asked for one; at a new question, a tool call
 * or an answer, as the question's number says; after tool results, an
 * answer.
 */
const reply = (request: RecordedRequest): ScriptedStep => {
  if (isSummaryRequest(request)) return { text: `Summary: many questions, some tools. ${padding}` };
  const last = request.messages.at(-1);
  if (last?.role === 'tool') return { text: `Done with ${last.name}. ${padding}` };
  const question = questionOf(request);
  if (question === ADOPTION) {
    return {
      toolCalls: [
        { name: 'adoptTool', arguments: { messageNumber: numberOf(request), edgeName: 'greeter', toolName: 'greet-tool' } },
      ],
    };
  }
  if (question === SECRET_LOOKUP) return { toolCalls: [{ name: 'lookup', arguments: { petName: 'note' } }] };
  if (question > ADOPTION && question % 7 === 0) {
    return { toolCalls: [{ name: 'greet', arguments: { name: `Ada ${question}`, language: 'french' } }] };
  }
  if (question % 3 === 0) return { toolCalls: [{ name: 'list', arguments: {} }] };
  return { text: `Answer ${question}. ${padding}` };
};

type Why = 'compaction' | 'tools' | 'window';

/** The turn requests, each with why its prefix may differ from the one before it, if it may. */
const turnRequests = (requests: readonly RecordedRequest[]) => {
  const turns: { readonly request: RecordedRequest; readonly why?: Why }[] = [];
  let summarized = false;
  for (const request of requests) {
    if (isSummaryRequest(request)) {
      summarized = true;
      continue;
    }
    const previous = turns.at(-1)?.request;
    const firstTurnMessage = (r: RecordedRequest) => canonical(r.messages.find(m => m.role !== 'system'));
    let why: Why | undefined;
    if (previous !== undefined && summarized) why = 'compaction';
    else if (previous !== undefined && canonical(previous.tools) !== canonical(request.tools)) why = 'tools';
    else if (previous !== undefined && firstTurnMessage(previous) !== firstTurnMessage(request)) why = 'window';
    turns.push(why === undefined ? { request } : { request, why });
    summarized = false;
  }
  return turns;
};

/** Starts fae on the scripted model, sends it `count` questions (the ADOPTION one mails it a tool), waits for every answer. */
const converse = async (env: Record<string, string>, count: number) => {
  const llm = makeScriptedProvider();
  for (let i = 0; i < count * 3; i += 1) llm.push(reply);
  const { host, controller, nextFromFae, daemon } = await startFaeInDaemon({
    provider: llm.provider,
    env: { LAL_AUTH_TOKEN: 'sk-unused-token-for-the-redactor', ...env },
    introducedNames: { note: 'note' },
    prepare: async h => {
      await E(h).storeValue(`the key is ${SECRET}`, 'note');
    },
  });
  try {
    await nextFromFae();
    await makeShippedTool(host, 'greet', 'greet-tool');
    const hostId: string = await E(host).identify('fae');
    for (let i = 1; i <= count; i += 1) {
      if (i === ADOPTION) await E(host).send('fae', [`question ${i}: here is `, ', adopt it.'], ['greeter'], ['greet-tool']);
      else await E(host).send('fae', [`question ${i}: ${padding}`], [], []);
    }
    while ((await E(controller).status()).handledMessages < count) {
      await new Promise(resolve => setTimeout(resolve, 50));
    }
    return { requests: llm.requests, hostId };
  } finally {
    await daemon.stop();
  }
};

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

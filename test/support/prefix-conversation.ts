// A long scripted conversation with fae (issue 23): 100 questions from the
// host, some answered with tool calls (`list`, a `lookup` whose result
// holds a secret, and after the adoption `greet`), one that mails fae a
// tool to adopt, and, with a small context budget, compactions. The
// stable-prefix test checks what each request repeats of the one before;
// the `prompt` bench measures what that saves with a prompt cache.
//
//   const { requests } = await converse({ FAE_CONTEXT_TOKENS: '6000' }, 100);
//   classify(requests)   // why each request may start differently from the one before
//
// `through` puts a real adapter between fae and the script (see
// wire-relay.ts): fae then talks to a loopback server, and the script
// still decides the answers from the requests fae made.
import { E } from '@endo/far';
import type { Provider } from '../../providers/types.js';
import { startFaeInDaemon } from './fae-harness.js';
import { makeScriptedProvider, lastUserWords, type RecordedRequest, type ScriptedStep } from './scripted-provider.js';
import { makeShippedTool } from './tool-caplets.js';

export const MESSAGES = 100;
/** The message that mails fae a tool to adopt. */
export const ADOPTION = 40;
/** The message whose tool result carries a secret (redacted when stored). */
export const SECRET_LOOKUP = 20;
export const SECRET = 'sk-prefix-test-0123456789abcdef';

const padding = 'lorem ipsum dolor sit amet '.repeat(4);

export const isSummaryRequest = (request: RecordedRequest) =>
  request.messages[0].content.startsWith('You keep the memory of a conversation');

/** JSON with every object's keys sorted: the same value, the same text. */
export const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );

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

/**
 * Why a request may start differently from the turn request before it: it
 * asks for a summary, it is the first after one, the tools offered
 * changed, or the window of messages moved on.
 */
export type Why = 'summary' | 'compaction' | 'tools' | 'window';

/** Every request, in order, each with why its prefix may differ, if it may. */
export const classify = (requests: readonly RecordedRequest[]) => {
  const classified: { readonly request: RecordedRequest; readonly why?: Why }[] = [];
  let previous: RecordedRequest | undefined;
  let summarized = false;
  const firstTurnMessage = (r: RecordedRequest) => canonical(r.messages.find(m => m.role !== 'system'));
  for (const request of requests) {
    if (isSummaryRequest(request)) {
      summarized = true;
      classified.push({ request, why: 'summary' });
      continue;
    }
    let why: Why | undefined;
    if (previous !== undefined && summarized) why = 'compaction';
    else if (previous !== undefined && canonical(previous.tools) !== canonical(request.tools)) why = 'tools';
    else if (previous !== undefined && firstTurnMessage(previous) !== firstTurnMessage(request)) why = 'window';
    classified.push(why === undefined ? { request } : { request, why });
    previous = request;
    summarized = false;
  }
  return classified;
};

/** The turn requests (summaries left out), each with why its prefix may differ from the one before it. */
export const turnRequests = (requests: readonly RecordedRequest[]) => classify(requests).filter(({ why }) => why !== 'summary');

export interface ConverseOptions {
  /** What fae is given instead of the scripted provider (which decides the answers). */
  readonly through?: (scripted: Provider) => Provider;
}

/** Starts fae on the scripted model, sends it `count` questions (the ADOPTION one mails it a tool), waits for every answer. */
export const converse = async (env: Record<string, string>, count: number, { through }: ConverseOptions = {}) => {
  const llm = makeScriptedProvider();
  for (let i = 0; i < count * 3; i += 1) llm.push(reply);
  const { host, controller, nextFromFae, daemon } = await startFaeInDaemon({
    provider: through === undefined ? llm.provider : through(llm.provider),
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

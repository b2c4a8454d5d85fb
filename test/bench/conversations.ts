// Conversations under load (src/conversations/): 1,000 messages from HOST
// with a small context budget. Prints the largest request against the
// budget, the daemon calls persistence adds per turn, and the heap after
// 100 and after 1,000 messages (after a full GC).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { E } from '@endo/far';
import { startFaeInDaemon } from '../support/fae-harness.js';
import { makeScriptedProvider, type RecordedRequest } from '../support/scripted-provider.js';
import { estimateRequest } from '../../src/conversations/tokens.js';

const BUDGET = 4000;
const PERSISTENCE_METHODS = ['storeValue', 'makeDirectory', 'remove'];

const collectGarbage = (): (() => void) | undefined => {
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  }
};

const isSummaryRequest = (request: RecordedRequest) =>
  request.messages[0].content.startsWith('You keep the memory of a conversation');

export const benchConversations = async () => {
  const gc = collectGarbage();
  const llm = makeScriptedProvider();
  let largest = 0;
  let summaries = 0;
  const answer = (request: RecordedRequest) => {
    largest = Math.max(largest, estimateRequest(request.messages, request.tools));
    // Only the latest request is kept: the recorder must not be what grows.
    llm.requests.splice(0, llm.requests.length - 1);
    if (isSummaryRequest(request)) {
      summaries += 1;
      return { text: 'The correspondent asked many numbered questions; Fae answered each.' };
    }
    return { text: `Answer to ${request.messages.at(-1)?.content.slice(0, 60)}` };
  };
  const { host, controller, nextFromFae, daemon } = await startFaeInDaemon({
    provider: llm.provider,
    env: { FAE_CONTEXT_TOKENS: String(BUDGET) },
  });
  await nextFromFae();
  const persistenceCalls = () => {
    const counts = daemon.callCounts();
    return PERSISTENCE_METHODS.reduce((sum, name) => sum + (counts[name] ?? 0), 0);
  };
  const heapAfter = async (upTo: number, from: number) => {
    for (let i = from; i <= upTo; i += 1) {
      llm.push(answer, answer);
       
      await E(host).send('fae', [`question ${i}: what is ${i} times ${i}?`], [], []);
    }
     
    while ((await E(controller).status()).handledMessages < upTo) {
       
      await new Promise(resolve => setTimeout(resolve, 20));
    }
    await E(host).dismissAll();
    gc?.();
    const { conversationSizes } = await E(controller).status();
    return { heap: process.memoryUsage().heapUsed, held: conversationSizes[0] };
  };
  daemon.resetCallCounts();
  const at100 = await heapAfter(100, 1);
  const callsAt100 = persistenceCalls();
  const at1000 = await heapAfter(1000, 101);
  const calls = persistenceCalls();
  const summariesAt1000 = summaries;
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  console.log(
    `conversations, 1,000 messages, FAE_CONTEXT_TOKENS=${BUDGET}: largest request ${largest} tokens (${((largest / BUDGET) * 100).toFixed(0)}% of the budget), ${summariesAt1000} summaries`,
  );
  console.log(
    `conversations: ${(calls / 1000).toFixed(2)} daemon calls per turn for persistence (${callsAt100} in the first 100 turns; each turn 1 storeValue; each summary makeDirectory, storeValue and remove of the previous generation)`,
  );
  console.log(
    `conversations: fae holds ${at100.held.messages} messages (~${at100.held.estimatedTokens} tokens) after 100 messages, ${at1000.held.messages} (~${at1000.held.estimatedTokens} tokens) after 1,000`,
  );
  console.log(
    `conversations: process heap after 100 messages ${mb(at100.heap)}, after 1,000 ${mb(at1000.heap)}${gc ? '' : ' (no GC control: rough)'} (the in-process daemon's message records and CapTP tables included)`,
  );
  await daemon.stop();
};

// Conversations under load (src/conversations/): 1,000 messages from HOST
// with a small context budget. Prints the largest request against the
// budget, the daemon calls persistence adds per turn, and the process heap
// after 100 and after 1,000 messages, twice: with CapTP as the real daemon
// sets it up (it keeps every presence fae ever imported), and with
// gcImports (fae's own heap, plus the answers CapTP keeps regardless);
// and fae's heap alone, in a thread of its own, from its start and once
// the runtime is warm.
import { E } from '@endo/far';
import { startFaeInDaemon } from '../support/fae-harness.js';
import { makeScriptedProvider, type RecordedRequest } from '../support/scripted-provider.js';
import { canCollectGarbage, settledHeapUsed } from '../support/garbage.js';
import { estimateRequest } from '../../src/conversations/requests/tokens.js';
import { stopQuietly } from './counted-fae.js';
import { startIsolatedFae, type HeapReading } from './isolated-fae.js';

const BUDGET = 4000;
/** How far apart readings of a heap that holds steady can be. */
const NOISE_BYTES = 128 * 1024;
const PERSISTENCE_METHODS = ['storeValue', 'makeDirectory', 'remove'];

const isSummaryRequest = (request: RecordedRequest) =>
  request.messages[0].content.startsWith('You keep the memory of a conversation');

/** 1,000 messages to one fae in its own daemon; figures at 100 and at 1,000. */
const conversationRun = async (gcImports: boolean) => {
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
    gcImports,
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
    // The bench host's own inbox is not fae's to keep.
    await E(host).dismissAll();
    const heap = await settledHeapUsed();
    const { conversationSizes } = await E(controller).status();
    return { heap, held: conversationSizes[0] };
  };
  daemon.resetCallCounts();
  const at100 = await heapAfter(100, 1);
  const callsAt100 = persistenceCalls();
  const at1000 = await heapAfter(1000, 101);
  const calls = persistenceCalls();
  await stopQuietly(daemon);
  return { largest, summaries, callsAt100, calls, at100, at1000 };
};

/**
 * fae alone in a thread of its own (isolated-fae.ts), answered by its own
 * model there, HOST writing each message once the one before is handled
 * (a burst would leave a varying number of fae's own copies waiting for
 * the thread's next turn, see conversations.ts, which blurs the reading):
 * its heap after 100 and after 1,000 messages, without the
 * daemon's records or CapTP's tables on the daemon's side; then the same
 * again over the next 1,000 messages, once the runtime is warm: V8's
 * compiled code and the table of SES's harden WeakSet (sized by the most
 * hardened objects alive between two collections) grow to a high mark
 * over the first ones, whatever fae keeps.
 */
const isolatedRun = async () => {
  const fae = await startIsolatedFae({ FAE_CONTEXT_TOKENS: String(BUDGET) });
  let sent = 0;
  const heapAfter = async (upTo: number) => {
    await fae.converse(sent + 1, upTo);
    sent = upTo;
    await E(fae.host).dismissAll();
    return fae.heapUsed();
  };
  const cold = { at100: await heapAfter(100), at1000: await heapAfter(1000) };
  const warm = { at100: await heapAfter(1100), at1000: await heapAfter(2000) };
  await fae.stop();
  return { cold, warm };
};

export const benchConversations = async () => {
  const faithful = await conversationRun(false);
  const own = await conversationRun(true);
  const isolated = await isolatedRun();
  const { largest, summaries, callsAt100, calls, at100, at1000 } = faithful;
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  console.log(
    `conversations, 1,000 messages, FAE_CONTEXT_TOKENS=${BUDGET}: largest request ${largest} tokens (${((largest / BUDGET) * 100).toFixed(0)}% of the budget), ${summaries} summaries`,
  );
  console.log(
    `conversations: ${(calls / 1000).toFixed(2)} daemon calls per turn for persistence (${callsAt100} in the first 100 turns; each turn 1 storeValue; each summary makeDirectory, storeValue and remove of the previous generation)`,
  );
  console.log(
    `conversations: fae holds ${at100.held.messages} messages (~${at100.held.estimatedTokens} tokens) after 100 messages, ${at1000.held.messages} (~${at1000.held.estimatedTokens} tokens) after 1,000`,
  );
  // What counts is the growth from 100 to 1,000: the heap at 100 holds
  // what earlier benches left in this process (the weak tables of SES's
  // harden and of passStyleOf keep the size they grew to).
  const rough = canCollectGarbage ? '' : ' (no gc(): rough)';
  const met = own.at1000.heap <= own.at100.heap ? 'met' : 'MISSED';
  const growth = (from: number, to: number) => `${to >= from ? '+' : '-'}${mb(Math.abs(to - from))}`;
  const { cold, warm } = isolated;
  const kb = (from: number, to: number) => `${to >= from ? '+' : '-'}${(Math.abs(to - from) / 1024).toFixed(0)} KB`;
  const parts = (from: HeapReading, to: HeapReading) =>
    `${kb(from.total, to.total)}: code space ${kb(from.code, to.code)}, the rest ${kb(from.total - from.code, to.total - to.code)}`;
  console.log(
    `conversations: fae's heap in a thread of its own, from its start: after 100 messages ${mb(cold.at100.total)}, after 1,000 ${mb(cold.at1000.total)} (${parts(cold.at100, cold.at1000)})${rough}`,
  );
  // Readings of a heap that holds steady still differ by some 60 KB.
  const warmMet = warm.at1000.total <= warm.at100.total + NOISE_BYTES ? 'met' : 'MISSED';
  console.log(
    `conversations: the same fae, runtime warm (after those 1,000): 100 messages later ${mb(warm.at100.total)}, 1,000 later ${mb(warm.at1000.total)} (${parts(warm.at100, warm.at1000)}); no higher after 1,000 than after 100, within ${NOISE_BYTES / 1024} KB: ${warmMet}${rough}`,
  );
  console.log(
    `conversations: process heap, fae's own (gcImports): after 100 messages ${mb(own.at100.heap)}, after 1,000 ${mb(own.at1000.heap)} (${growth(own.at100.heap, own.at1000.heap)}; no higher after 1,000: ${met})${rough}`,
  );
  console.log(
    `conversations: process heap, CapTP as in the daemon: after 100 messages ${mb(at100.heap)}, after 1,000 ${mb(at1000.heap)} (${growth(at100.heap, at1000.heap)}; the in-process daemon's records and CapTP's tables included)`,
  );
};

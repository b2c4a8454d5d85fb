// Streaming (issue 23): time to the first word and to the whole answer,
// against loopback servers of each kind that write a word every 20 ms (a
// 50-word answer: about a second), streamed and, from a server that cannot
// stream, plain (which comes whole once every word is written). Measured
// twice: a provider's chat() on its own, from the call to its first onText
// and to its result; and a full fae turn, from the host's message to the
// first text fae's progress reply is given (onText) and to the answer in
// the host's inbox. Where fae can edit its reply (August), the person sees
// that text at the reply's next edit (at most one a second, see
// progress-reply.ts); elsewhere only the answer.
import { E } from '@endo/far';
import { createProvider } from '../../providers/index.js';
import type { Provider } from '../../providers/types.js';
import { startFaeInDaemon } from '../support/fae-harness.js';
import { startLlmServer, type LlmKind, type LlmServer } from '../support/llm-server.js';
import { makeScriptedProvider } from '../support/scripted-provider.js';
import { relayThroughWire } from '../support/wire-relay.js';
import { stopQuietly } from './counted-fae.js';
import { median } from './side-by-side.js';

const WORDS = 50;
const EVERY_MS = 20;
const CHATS = 5;
const TURNS = 3;
const ANSWER = Array.from({ length: WORDS }, (_, i) => `word${i + 1}`).join(' ');
const KINDS: readonly LlmKind[] = ['anthropic', 'openai', 'ollama'];

interface Timing {
  readonly firstMs: number;
  readonly wholeMs: number;
}

/** The settings of a provider for `server` (a local Ollama needs no key). */
const envFor = (server: LlmServer) => (server.kind === 'ollama' ? { LAL_HOST: server.url } : server.env());

/** The provider, telling `onFirst` when its first text reaches the caller. */
const watchFirstText = (provider: Provider, onFirst: () => void): Provider => ({
  kind: provider.kind,
  model: provider.model,
  chat: (messages, tools, options = {}) => {
    const { onText } = options;
    return provider.chat(messages, tools, {
      ...options,
      onText: delta => {
        onFirst();
        onText?.(delta);
      },
    });
  },
});

const medians = (timings: readonly Timing[]): Timing => ({
  firstMs: median(timings.map(t => t.firstMs)),
  wholeMs: median(timings.map(t => t.wholeMs)),
});

/** Runs `work` with a trickling server of `kind` that streams or not. */
const withServer = async <T>(kind: LlmKind, streams: boolean, work: (server: LlmServer) => Promise<T>) => {
  const server = await startLlmServer(kind, { streams });
  try {
    return await work(server);
  } finally {
    await server.close();
  }
};

/** chat() alone: from the call to the first text and to the result. */
const chatTimings = (kind: LlmKind, streams: boolean) =>
  withServer(kind, streams, async server => {
    server.otherwise({ text: ANSWER, trickleMs: EVERY_MS });
    let first: number | undefined;
    const provider = watchFirstText(createProvider(envFor(server)), () => {
      first ??= performance.now();
    });
    const timings: Timing[] = [];
    // The first call warms up (a server that cannot stream is recognised by its first answer).
    for (let i = 0; i <= CHATS; i += 1) {
      first = undefined;
      const start = performance.now();
      await provider.chat([{ role: 'user', content: `Say ${WORDS} words.` }], []);
      const end = performance.now();
      if (i > 0) timings.push({ firstMs: (first ?? end) - start, wholeMs: end - start });
    }
    return medians(timings);
  });

/** A full fae turn: from the host's message to the first text fae is given and to the answer. */
const turnTimings = (kind: LlmKind, streams: boolean) =>
  withServer(kind, streams, async server => {
    let first: number | undefined;
    const adapter = watchFirstText(createProvider(envFor(server)), () => {
      first ??= performance.now();
    });
    const llm = makeScriptedProvider(Array.from({ length: TURNS + 1 }, () => ({ text: ANSWER })));
    const { host, nextFromFae, daemon } = await startFaeInDaemon({
      provider: relayThroughWire(llm.provider, server, adapter, { shape: reply => ({ ...reply, trickleMs: EVERY_MS }) }),
    });
    try {
      await nextFromFae();
      const timings: Timing[] = [];
      for (let i = 0; i <= TURNS; i += 1) {
        first = undefined;
        const start = performance.now();
        await E(host).send('fae', [`Say ${WORDS} words.`], [], []);
        await nextFromFae();
        const end = performance.now();
        if (i > 0) timings.push({ firstMs: (first ?? end) - start, wholeMs: end - start });
      }
      return medians(timings);
    } finally {
      await stopQuietly(daemon);
    }
  });

const ms = (value: number) => `${value.toFixed(0).padStart(5)} ms`;

export const benchStreaming = async () => {
  console.log(`a ${WORDS}-word answer, a word every ${EVERY_MS} ms; medians of ${CHATS} chats, ${TURNS} fae turns`);
  console.log(`${''.padEnd(22)}${'streamed: first word'.padStart(22)}${'whole'.padStart(10)}${'plain: whole'.padStart(16)}`);
  for (const kind of KINDS) {
    // One at a time: each server's trickle runs on the same timers.
    for (const [what, measure] of [
      ['chat()', chatTimings],
      ['fae turn', turnTimings],
    ] as const) {
      const streamed = await measure(kind, true);
      const plain = await measure(kind, false);
      console.log(
        `${kind.padEnd(10)}${what.padEnd(12)}${ms(streamed.firstMs).padStart(22)}${ms(streamed.wholeMs).padStart(10)}${ms(plain.wholeMs).padStart(16)}`,
      );
    }
  }
  console.log('plain: a server that cannot stream; its first word comes with the whole answer.');
};

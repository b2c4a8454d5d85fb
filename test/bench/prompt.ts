// What fae's requests cost a provider with a prompt cache (issue 23): the
// 100-message conversation of the stable-prefix test (tool calls, an
// adoption, two compactions; test/support/prefix-conversation.ts) runs
// through fae's real Anthropic adapter to a loopback Anthropic server, so
// the bodies priced are those fae puts on the wire, with the cache
// breakpoints the adapter placed. For each request: the share of its bytes
// that repeat the start of the request before it, and its input tokens,
// billed as Anthropic would with its cache (anthropic-cache-model.ts) and
// without. Then the first request's size with every built-in offered and
// with only the mail group.
import { E } from '@endo/far';
import { createProvider } from '../../providers/index.js';
import { DEFAULT_ANTHROPIC_MODEL } from '../../providers/config.js';
import { estimateRequest } from '../../src/conversations/requests/tokens.js';
import { builtInPrice } from '../../src/usage/prices.js';
import { startFaeInDaemon } from '../support/fae-harness.js';
import { startLlmServer, type LlmServer } from '../support/llm-server.js';
import { classify, converse, MESSAGES, type Why } from '../support/prefix-conversation.js';
import { makeScriptedProvider } from '../support/scripted-provider.js';
import { relayThroughWire } from '../support/wire-relay.js';
import { makeAnthropicCache, repeatedShare, type PricedRequest } from './anthropic-cache-model.js';
import { stopQuietly, withoutSentErrors } from './counted-fae.js';
import { median } from './side-by-side.js';

/** Small enough for two compactions in 100 messages, as in the stable-prefix test. */
const CONTEXT_TOKENS = 6000;
/** The smallest prefix Anthropic caches, for the models fae's price table knows. */
const FLOORS: readonly (readonly [number, string])[] = [
  [1024, 'Sonnet 4.5'],
  [4096, 'Opus 4.5 (fae\'s default), Haiku 4.5'],
];
const SHARE_TARGET = 0.9;
const BILL_TARGET = 0.3;

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
const thousands = (value: number) => Math.round(value).toLocaleString('en-US');
const met = (ok: boolean) => (ok ? 'met' : 'MISSED');

/** Runs `work` with an Anthropic loopback server and fae's adapter for it. */
const withAnthropic = async <T>(work: (server: LlmServer, adapter: ReturnType<typeof createProvider>) => Promise<T>) => {
  const server = await startLlmServer('anthropic');
  try {
    return await work(server, createProvider(server.env()));
  } finally {
    await server.close();
  }
};

/** The conversation's requests (as fae made them, classified) and their bodies on the wire. */
const runConversation = () =>
  withAnthropic(async (server, adapter) => {
    // Quietly: fae's start probes a plain value for tool methods, and the daemon says it refused.
    const { requests } = await withoutSentErrors(() =>
      converse({ FAE_CONTEXT_TOKENS: String(CONTEXT_TOKENS) }, MESSAGES, {
        through: script => relayThroughWire(script, server, adapter),
      }),
    );
    const bodies = server.chatRequests.map(request => request.body);
    if (bodies.length !== requests.length) throw Error(`${requests.length} requests made, ${bodies.length} on the wire`);
    return { classified: classify(requests), bodies };
  });

/** Is the request one of a compaction's: the summary, or the first turn after it? */
const ofCompaction = (why: Why | undefined) => why === 'summary' || why === 'compaction';

/**
 * Each request's share of bytes repeating the start of the turn request
 * before it (a summary's, of the request just before it): what a prompt
 * cache could serve of the conversation.
 */
const sharesOf = (whys: readonly (Why | undefined)[], bodies: readonly unknown[]) => {
  let lastTurn: unknown;
  return bodies.map((body, at) => {
    const before = whys[at] === 'summary' ? bodies[at - 1] : lastTurn;
    if (whys[at] !== 'summary') lastTurn = body;
    return before === undefined ? 0 : repeatedShare(before, body);
  });
};

const reportShares = (whys: readonly (Why | undefined)[], bodies: readonly unknown[]) => {
  const shares = sharesOf(whys, bodies);
  const held = whys.flatMap((why, at) => (at > 0 && why === undefined ? [at] : []));
  const lowest = held.reduce((low, at) => (shares[at] < shares[low] ? at : low), held[0]);
  console.log(`bytes repeating the start of the turn request before (${held.length} requests that keep the prefix):`);
  console.log(`  lowest ${percent(shares[lowest])} (request ${lowest + 1}), median ${percent(median(held.map(at => shares[at])))}`);
  const others = whys.flatMap((why, at) => (why === undefined ? [] : [`${why} ${at + 1}: ${percent(shares[at])}`]));
  console.log(`  the others: ${others.join('; ')}`);
  // The target spares the compactions only: the adoption counts.
  const judged = whys.flatMap((why, at) => (at > 0 && !ofCompaction(why) ? [at] : []));
  const misses = judged.filter(at => shares[at] < SHARE_TARGET);
  const missed = misses.map(at => `request ${at + 1}${whys[at] === undefined ? '' : ` (${whys[at]})`}: ${percent(shares[at])}`);
  console.log(`  target ≥ ${percent(SHARE_TARGET)} on every request but the compactions': ${met(misses.length === 0)}${misses.length === 0 ? '' : `; below it: ${missed.join(', ')}`}`);
};

const reportBill = (bodies: readonly unknown[]) => {
  const prices = builtInPrice(DEFAULT_ANTHROPIC_MODEL);
  if (prices === undefined) throw Error(`No built-in price for ${DEFAULT_ANTHROPIC_MODEL}`);
  const write = prices.cacheWrite / prices.input;
  const read = prices.cached / prices.input;
  console.log(`input tokens, billed as Anthropic does (cache write ${write}×, cache read ${read}× the input price):`);
  for (const [floor, models] of FLOORS) {
    const cache = makeAnthropicCache(floor);
    const priced = bodies.map(body => cache.price(body));
    const sum = (pick: (p: PricedRequest) => number) => priced.reduce((total, p) => total + pick(p), 0);
    const tokens = sum(p => p.tokens);
    const billed = sum(p => p.uncached) + write * sum(p => p.written) + read * sum(p => p.read);
    const under = priced.filter(p => p.tokens < floor).length;
    console.log(
      `  prefixes of ${thousands(floor)}+ tokens cached (${models}): ${thousands(sum(p => p.read))} read, ${thousands(sum(p => p.written))} written, ${thousands(sum(p => p.uncached))} plain (${under} requests are shorter than that: never cached)`,
    );
    console.log(
      `    billed as ${thousands(billed)} of ${thousands(tokens)} without caching: ${percent(billed / tokens)} (target ≤ ${percent(BILL_TARGET)}: ${met(billed / tokens <= BILL_TARGET)})`,
    );
  }
};

const benchConversation = async () => {
  const { classified, bodies } = await runConversation();
  const whys = classified.map(({ why }) => why);
  const sent = bodies.reduce((total: number, body) => total + makeAnthropicCache(Infinity).price(body).tokens, 0);
  const summaries = whys.filter(why => why === 'summary').length;
  console.log(
    `${MESSAGES} messages (tool calls, an adoption, FAE_CONTEXT_TOKENS=${CONTEXT_TOKENS}): ${bodies.length} requests, ${summaries} of them summaries, through fae's Anthropic adapter to a loopback server`,
  );
  console.log(`tokens are bytes / 4 of each block's JSON as sent (the plain ratio of src/conversations/requests/tokens.ts)`);
  console.log(`input tokens sent: ${thousands(sent)}`);
  reportShares(whys, bodies);
  reportBill(bodies);
};

/** fae's first request with FAE_BUILTINS=`builtIns`: its tools and its size. */
const firstRequest = (builtIns: string) =>
  withAnthropic(async (server, adapter) => {
    const llm = makeScriptedProvider([{ text: 'Hello.' }]);
    const { host, nextFromFae, daemon } = await startFaeInDaemon({
      provider: relayThroughWire(llm.provider, server, adapter),
      env: { FAE_BUILTINS: builtIns },
    });
    try {
      await nextFromFae();
      await E(host).send('fae', ['Hello, what can you do?'], [], []);
      await nextFromFae();
    } finally {
      await stopQuietly(daemon);
    }
    const [request] = llm.requests;
    const [wire] = server.chatRequests;
    return {
      tools: request.toolNames.length,
      estimate: estimateRequest(request.messages, request.tools),
      wireTokens: makeAnthropicCache(Infinity).price(wire.body).tokens,
    };
  });

const benchFirstRequests = async () => {
  console.log('\nfirst request of a conversation (system prompt, tools, one short message):');
  const sizes: Record<string, number> = {};
  for (const builtIns of ['all', 'mail']) {
    // One after the other: each starts its own daemon.
    const { tools, estimate, wireTokens } = await firstRequest(builtIns);
    sizes[builtIns] = wireTokens;
    console.log(
      `  FAE_BUILTINS=${builtIns.padEnd(4)}: ${String(tools).padStart(2)} tools, ${thousands(estimate)} tokens by fae's estimate, ${thousands(wireTokens)} on Anthropic's wire (bytes / 4)`,
    );
  }
  console.log(`  mail alone sends ${percent(sizes.mail / sizes.all)} of what all the built-ins do`);
};

export const benchPrompt = async () => {
  await benchConversation();
  await benchFirstRequests();
};

// What model calls cost, for the estimate status() and the turn log give:
// prices in US dollars per million tokens, from FAE_PRICES for the model
// fae runs on, or from a small table of well-known models. A model with
// no price has its tokens counted and no cost estimated.
import { q } from '@endo/errors';

/** What model calls used and cost (usage-ledger.ts keeps them per correspondent and model). */
export interface UsageTotals {
  readonly requests: number;
  /** Every input token, cached ones included. */
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly cacheWriteInputTokens: number;
  readonly outputTokens: number;
  /** The estimate for the requests whose model had prices. */
  readonly costUsd: number;
  /** Requests whose model had no prices: not in costUsd. */
  readonly unpricedRequests: number;
}

/** US dollars per million tokens. */
export interface Prices {
  readonly input: number;
  /** Input read from the prompt cache. */
  readonly cached: number;
  /** Input written to the prompt cache (Anthropic bills it at a premium). */
  readonly cacheWrite: number;
  readonly output: number;
}

/**
 * Published list prices, per million tokens, of a handful of well-known
 * models, checked against the providers' own pages:
 *   https://docs.anthropic.com/en/docs/about-claude/pricing (November
 *     2025: base input, 5-minute cache writes, cache hits, output; the
 *     Opus 4.6 to 5 rows again, unchanged from Opus 4.5's, on
 *     https://platform.claude.com/docs/en/about-claude/pricing, November
 *     2026), and Sonnet 5 from its model page
 *     (https://platform.claude.com/docs/en/models/sonnet-5/overview,
 *     November 2026; models whose cache prices these pages did not show
 *     alike, such as Sonnet 5.5, Opus 5.5 and Haiku 5.5, are left to
 *     FAE_PRICES);
 *   https://platform.openai.com/docs/pricing (November 2025: input,
 *     cached input, output; OpenAI bills no cache write).
 * Prices change: FAE_PRICES overrides this table for the model fae runs
 * on. A dated model name (claude-opus-4-5-20251101, gpt-4.1-2025-04-14)
 * takes its family's price.
 */
const BUILT_IN_PRICES: Readonly<Record<string, Prices>> = harden({
  'claude-opus-5': { input: 5, cached: 0.5, cacheWrite: 6.25, output: 25 },
  'claude-opus-4-8': { input: 5, cached: 0.5, cacheWrite: 6.25, output: 25 },
  'claude-opus-4-7': { input: 5, cached: 0.5, cacheWrite: 6.25, output: 25 },
  'claude-opus-4-6': { input: 5, cached: 0.5, cacheWrite: 6.25, output: 25 },
  'claude-opus-4-5': { input: 5, cached: 0.5, cacheWrite: 6.25, output: 25 },
  'claude-sonnet-5': { input: 2, cached: 0.2, cacheWrite: 2.5, output: 10 },
  'claude-sonnet-4-5': { input: 3, cached: 0.3, cacheWrite: 3.75, output: 15 },
  'claude-haiku-4-5': { input: 1, cached: 0.1, cacheWrite: 1.25, output: 5 },
  'gpt-5': { input: 1.25, cached: 0.125, cacheWrite: 1.25, output: 10 },
  'gpt-4.1': { input: 2, cached: 0.5, cacheWrite: 2, output: 8 },
  'gpt-4o-mini': { input: 0.15, cached: 0.075, cacheWrite: 0.15, output: 0.6 },
});

/** `family` itself, or it with a date after it (-20251101, -2025-04-14): not gpt-4.1-mini for gpt-4.1. */
const isOf = (model: string, family: string) =>
  model === family || new RegExp(`^${family.replace(/\./g, '\\.')}-(\\d{8}|\\d{4}-\\d{2}-\\d{2})$`).test(model);

/** Each model's price, found once: fae runs on one model, priced at every turn. */
const found = new Map<string, Prices | undefined>();

export const builtInPrice = (model: string): Prices | undefined => {
  if (found.has(model)) return found.get(model);
  const price = Object.entries(BUILT_IN_PRICES).find(([family]) => isOf(model, family))?.[1];
  // Bounded: model names come from the provider's answers.
  if (found.size >= 64) found.clear();
  found.set(model, price);
  return price;
};
harden(builtInPrice);

const PRICE_NAMES: Readonly<Record<string, keyof Prices>> = harden({
  input: 'input',
  cached: 'cached',
  'cache-write': 'cacheWrite',
  output: 'output',
});

const FORMAT = 'FAE_PRICES must be like "input=3,cached=0.3,output=15" (US dollars per million tokens; cache-write=3.75 may follow)';

/**
 * FAE_PRICES: `input=3,cached=0.3,cache-write=3.75,output=15`, US
 * dollars per million tokens for the model fae runs on. input and output
 * are required; cached and cache-write default to the input price (no
 * discount, no premium). Undefined when unset.
 */
export const readPrices = (text: string | undefined): Prices | undefined => {
  if (text === undefined || text.trim() === '') return undefined;
  const given: Partial<Record<keyof Prices, number>> = {};
  for (const part of text.split(',')) {
    const [rawName, rawValue, ...extra] = part.split('=');
    const name = PRICE_NAMES[rawName?.trim() ?? ''];
    if (name === undefined || rawValue === undefined || extra.length > 0) {
      throw Error(`${FORMAT}; ${q(part.trim())} is not one of input=, cached=, cache-write=, output=`);
    }
    const value = Number(rawValue.trim());
    if (rawValue.trim() === '' || !Number.isFinite(value) || value < 0) {
      throw Error(`${FORMAT}; ${q(rawValue.trim())} is not a price (a number, 0 or more)`);
    }
    if (given[name] !== undefined) throw Error(`${FORMAT}; ${q(rawName.trim())} is given twice`);
    given[name] = value;
  }
  if (given.input === undefined || given.output === undefined) {
    throw Error(`${FORMAT}; input and output are required, in ${q(text)}`);
  }
  return harden({
    input: given.input,
    cached: given.cached ?? given.input,
    cacheWrite: given.cacheWrite ?? given.input,
    output: given.output,
  });
};
harden(readPrices);

/** US dollars for `usage` at `prices`. */
export const costOf = (usage: Omit<UsageTotals, 'costUsd' | 'unpricedRequests' | 'requests'>, prices: Prices) => {
  const plainInput = Math.max(0, usage.inputTokens - usage.cachedInputTokens - usage.cacheWriteInputTokens);
  return (
    (plainInput * prices.input +
      usage.cachedInputTokens * prices.cached +
      usage.cacheWriteInputTokens * prices.cacheWrite +
      usage.outputTokens * prices.output) /
    1_000_000
  );
};
harden(costOf);

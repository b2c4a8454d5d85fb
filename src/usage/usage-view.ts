// /usage (the terminal chat, and fae itself for its host): what fae's model calls have cost, as its
// status() reports it (src/usage/usage-ledger.ts), as a few lines of text.
import { utcMinute } from '../utc-minute.js';

/** One line's worth of totals, as status().usage gives them. */
interface Shown {
  readonly requests: number;
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  readonly estimatedCostUsd?: number;
}

export interface UsageView {
  readonly since?: string;
  readonly total?: Shown;
  readonly models?: readonly (Shown & { readonly model: string })[];
  readonly correspondents?: readonly (Shown & { readonly name: string })[];
  readonly others?: Shown & { readonly correspondents: number };
}

// Grouped by hand: toLocaleString under SES lockdown gives no separators.
const count = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

const lineOf = (label: string, { requests, inputTokens, cachedInputTokens, outputTokens, estimatedCostUsd }: Shown) =>
  `  ${label}: ${count(requests)} request${requests === 1 ? '' : 's'}, ${count(inputTokens)} tokens in (${count(cachedInputTokens)} cached), ${count(outputTokens)} out${estimatedCostUsd === undefined ? '' : `, about $${estimatedCostUsd.toFixed(4)}`}`;

/**
 * The text /usage shows; `usage` is status().usage (undefined while fae is
 * not running). The line of `you` (fae's name for who asked) reads "you".
 */
export const describeUsage = (usage: UsageView | undefined, you?: string): string => {
  if (usage?.total === undefined) return 'fae has no usage to report yet.';
  const lines = [`What fae's model calls have cost${usage.since === undefined ? '' : ` since ${utcMinute(usage.since)}`}:`, lineOf('in all', usage.total)];
  for (const model of usage.models ?? []) lines.push(lineOf(`model ${model.model}`, model));
  for (const who of usage.correspondents ?? []) lines.push(lineOf(who.name === you ? 'you' : who.name, who));
  if (usage.others !== undefined && usage.others.correspondents > 0) {
    lines.push(lineOf(`${usage.others.correspondents} others`, usage.others));
  }
  return lines.join('\n');
};
harden(describeUsage);

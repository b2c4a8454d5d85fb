// src/usage/: what model calls cost: prices, the ledger per correspondent and
// model, and its store. It imports src/daemon and the layers below.
//
// What fae's model calls have cost, per correspondent and per model:
// requests, input tokens (of which cached, and written to the cache),
// output tokens and, where the model's prices are known (prices.ts), an
// estimate in US dollars. Kept in memory, bounded, and as a record that
// is stored (usage-store.ts) and read back after a restart.
//
// Correspondents are kept under a hash of their id, and shown by the pet
// name fae's directory holds for them, or as "unnamed-" and the start of
// that hash: an id is a daemon's handle on someone, not for status() or a
// log, and the hash still tells two unnamed correspondents apart.
import { createHash } from 'node:crypto';
import { q } from '@endo/errors';
import { costOf, type Prices, type UsageTotals } from './prices.js';
import { readStoredText } from '../daemon/stored-text.js';

/** What one turn (or summary) used, as the provider reported it. */
export type UsageSpent = Omit<UsageTotals, 'costUsd' | 'unpricedRequests'>;

export const NO_USAGE: UsageTotals = harden({
  requests: 0,
  inputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteInputTokens: 0,
  outputTokens: 0,
  costUsd: 0,
  unpricedRequests: 0,
});

const FIELDS = Object.keys(NO_USAGE) as (keyof UsageTotals)[];

export const addUsage = (a: UsageTotals, b: UsageTotals): UsageTotals =>
  harden(Object.fromEntries(FIELDS.map(field => [field, a[field] + b[field]])) as unknown as UsageTotals);
harden(addUsage);

const tokensOf = (totals: UsageTotals) => totals.inputTokens + totals.outputTokens;

/** Correspondents kept apart in the stored record; the others are added up. */
export const KEPT_CORRESPONDENTS = 200;
/** Models kept apart. */
const KEPT_MODELS = 20;
/** Correspondents status() lists; the others are one total. */
export const LISTED_CORRESPONDENTS = 20;

/** Keys made lately, by correspondent: each turn's is made again, before its answer. */
const keys = new Map<string, string>();
const KEPT_KEYS = 256;

/** Where a correspondent's totals are kept: a hash of its id. */
export const correspondentKeyOf = (correspondent: string) => {
  let key = keys.get(correspondent);
  if (key === undefined) {
    key = createHash('sha256').update(`fae usage\n${correspondent}`).digest('hex').slice(0, 16);
    if (keys.size >= KEPT_KEYS) keys.delete(keys.keys().next().value as string);
    keys.set(correspondent, key);
  }
  return key;
};
harden(correspondentKeyOf);

/** How a correspondent fae has no pet name for is shown (its key from correspondentKeyOf): the same in status() and in fae's texts. */
export const unnamedLabel = (key: string) => `unnamed-${key.slice(0, 8)}`;
harden(unnamedLabel);

interface CorrespondentTotals {
  name: string | undefined;
  totals: UsageTotals;
}

/** The stored record (version 1), plain data. */
export interface UsageRecord {
  readonly kind: 'fae-usage';
  readonly version: 1;
  /** When counting began (ISO date). */
  readonly since: string;
  readonly correspondents: readonly ({ readonly key: string; readonly name?: string } & UsageTotals)[];
  /** Correspondents added up once more than KEPT_CORRESPONDENTS were known. */
  readonly others: UsageTotals & { readonly correspondents: number };
  readonly models: readonly ({ readonly model: string } & UsageTotals)[];
}

const isTotals = (value: unknown): value is UsageTotals =>
  typeof value === 'object' &&
  value !== null &&
  FIELDS.every(field => {
    const count = (value as Record<string, unknown>)[field];
    return typeof count === 'number' && Number.isFinite(count) && count >= 0;
  });

const totalsOf = (value: UsageTotals): UsageTotals => harden(Object.fromEntries(FIELDS.map(field => [field, value[field]])) as unknown as UsageTotals);

/** The record in `value`; throws what is wrong with it. */
export const checkUsageRecord = (value: unknown): UsageRecord => {
  const record = value as Partial<UsageRecord> | null;
  if (typeof record !== 'object' || record === null || record.kind !== 'fae-usage' || record.version !== 1) {
    throw Error(`not fae's usage record (version 1): ${q(value)}`);
  }
  const { since, correspondents, others, models } = record;
  if (typeof since !== 'string' || !Array.isArray(correspondents) || !Array.isArray(models) || !isTotals(others)) {
    throw Error('its fields are not those of a usage record');
  }
  const field = (value: unknown, name: string) => (value as Record<string, unknown>)[name];
  const isCorrespondent = (value: unknown) =>
    isTotals(value) && typeof field(value, 'key') === 'string' && ['undefined', 'string'].includes(typeof field(value, 'name'));
  if (!(correspondents as unknown[]).every(isCorrespondent) || typeof field(others, 'correspondents') !== 'number') {
    throw Error('a correspondent of it is not one of a usage record');
  }
  if (!(models as unknown[]).every(model => isTotals(model) && typeof field(model, 'model') === 'string')) {
    throw Error('a model of it is not one of a usage record');
  }
  return record as UsageRecord;
};
harden(checkUsageRecord);

/**
 * The record stored as `value`: JSON text, as fae stores it, or the record
 * itself, as earlier versions did. Throws what is wrong with it.
 */
export const usageRecordIn = (value: unknown): UsageRecord =>
  checkUsageRecord(readStoredText(value, text => `not fae's usage record: text that is not JSON (${text.length} characters)`));
harden(usageRecordIn);

/** The key of the entry of `map` with the fewest tokens (the first of equals). */
const smallestKey = <K>(map: Map<K, { totals: UsageTotals }>) => {
  let smallest: K | undefined;
  let fewest = Infinity;
  for (const [key, { totals }] of map) {
    const tokens = tokensOf(totals);
    if (tokens < fewest) {
      smallest = key;
      fewest = tokens;
    }
  }
  return smallest as K;
};

/** Keeps the `limit` largest entries of `map`; the others are removed and returned added up, with their count. */
const foldSmallest = <K>(map: Map<K, { totals: UsageTotals }>, limit: number) => {
  let folded = NO_USAGE;
  const count = Math.max(0, map.size - limit);
  // One over (a new correspondent, the usual case once there are many):
  // one pass finds it, where sorting them all cost some 16 µs a turn.
  const smallest =
    count === 1
      ? [smallestKey(map)]
      : [...map.entries()]
          .sort(([, a], [, b]) => tokensOf(a.totals) - tokensOf(b.totals))
          .slice(0, count)
          .map(([key]) => key);
  for (const key of smallest) {
    folded = addUsage(folded, map.get(key)!.totals);
    map.delete(key);
  }
  return { folded, count };
};

/** A listing entry: the totals, with the estimate only where there is one. */
const shown = (totals: UsageTotals) => {
  const { costUsd, unpricedRequests, ...counts } = totals;
  return harden({
    ...counts,
    ...(totals.requests > unpricedRequests ? { estimatedCostUsd: Math.round(costUsd * 1e6) / 1e6 } : {}),
    ...(unpricedRequests > 0 ? { unpricedRequests } : {}),
  });
};

export const makeUsageLedger = ({ pricesFor, now = () => new Date() }: {
  /** The prices of `model`, if known. */
  readonly pricesFor: (model: string) => Prices | undefined;
  readonly now?: () => Date;
}) => {
  let since = now().toISOString();
  const correspondents = new Map<string, CorrespondentTotals>();
  const models = new Map<string, { totals: UsageTotals }>();
  let others = NO_USAGE;
  let otherCount = 0;

  const addTo = <K, V extends { totals: UsageTotals }>(map: Map<K, V>, key: K, make: () => V, totals: UsageTotals) => {
    const entry = map.get(key) ?? make();
    entry.totals = addUsage(entry.totals, totals);
    map.set(key, entry);
    return entry;
  };
  const foldCorrespondents = () => {
    const { folded, count } = foldSmallest(correspondents, KEPT_CORRESPONDENTS);
    others = addUsage(others, folded);
    otherCount += count;
  };
  const foldModels = () => {
    const { folded } = foldSmallest(models, KEPT_MODELS);
    if (folded !== NO_USAGE) addTo(models, '(other models)', () => ({ totals: NO_USAGE }), folded);
  };

  /** The totals `spent` makes with `model`'s prices. */
  const priced = (model: string, spent: UsageSpent): UsageTotals => {
    const prices = pricesFor(model);
    return harden({
      ...spent,
      costUsd: prices === undefined ? 0 : costOf(spent, prices),
      unpricedRequests: prices === undefined ? spent.requests : 0,
    });
  };

  return harden({
    /**
     * Adds what `correspondent` (shown as `name`, its pet name, when fae
     * has one) spent on `model`; the totals it makes, with their estimate.
     */
    record: (correspondent: string, name: string | undefined, model: string, spent: UsageSpent) => {
      const totals = priced(model, spent);
      const entry = addTo(correspondents, correspondentKeyOf(correspondent), () => ({ name, totals: NO_USAGE }), totals);
      if (name !== undefined) entry.name = name;
      addTo(models, model, () => ({ totals: NO_USAGE }), totals);
      foldCorrespondents();
      foldModels();
      return totals;
    },
    /** Adds a stored record to what was counted since fae started (which came after it). */
    restore: (record: UsageRecord) => {
      since = record.since;
      for (const { key, name, ...totals } of record.correspondents) {
        const entry = addTo(correspondents, key, () => ({ name, totals: NO_USAGE }), totalsOf(totals));
        entry.name ??= name;
      }
      for (const { model, ...totals } of record.models) addTo(models, model, () => ({ totals: NO_USAGE }), totalsOf(totals));
      others = addUsage(others, totalsOf(record.others));
      otherCount += record.others.correspondents;
      foldCorrespondents();
      foldModels();
    },
    /**
     * The record to store, as JSON text: a string crosses to the daemon
     * whole, where CapTP would check and copy a record of up to 200
     * correspondents object by object (some 1.5 ms a write, against
     * 0.1 ms), and it needs no hardening.
     */
    toText: (): string => {
      const record: UsageRecord = {
        kind: 'fae-usage',
        version: 1,
        since,
        correspondents: [...correspondents].map(([key, { name, totals }]) => ({ key, ...(name === undefined ? {} : { name }), ...totals })),
        others: { ...others, correspondents: otherCount },
        models: [...models].map(([model, { totals }]) => ({ model, ...totals })),
      };
      return JSON.stringify(record);
    },
    /** For status(): the whole, per model, the LISTED_CORRESPONDENTS largest correspondents, and the rest as one. */
    status: () => {
      const byTokens = [...correspondents.entries()].sort(([, a], [, b]) => tokensOf(b.totals) - tokensOf(a.totals));
      const listed = byTokens.slice(0, LISTED_CORRESPONDENTS);
      const rest = byTokens.slice(LISTED_CORRESPONDENTS).reduce((sum, [, { totals }]) => addUsage(sum, totals), others);
      const all = [...models.values()].reduce((sum, { totals }) => addUsage(sum, totals), NO_USAGE);
      return harden({
        since,
        total: shown(all),
        models: [...models].map(([model, { totals }]) => ({ model, ...shown(totals) })),
        correspondents: listed.map(([key, { name, totals }]) => ({ name: name ?? unnamedLabel(key), ...shown(totals) })),
        others: { correspondents: otherCount + byTokens.length - listed.length, ...shown(rest) },
      });
    },
  });
};
harden(makeUsageLedger);
export type UsageLedger = ReturnType<typeof makeUsageLedger>;

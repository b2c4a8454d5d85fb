// src/agent/limits/: what bounds a correspondent: the daily budget, the pace
// guard and the usage accounts.
// Imports: the layers below src/agent, and the rest of src/agent but fae.ts.
//
// A budget the host sets (issue 23): tokens per correspondent per day
// (UTC), from FAE_BUDGET_TOKENS or from the value `budget` in fae's
// directory, which the host may change while fae runs (a number of
// tokens, or { tokens, host }). The host is exempt unless FAE_BUDGET_HOST=1
// (or host: true). A correspondent past its budget gets one notice a day
// and no model call; the host is told once a day who reached it.
// It holds at every model call, not only as a turn starts: each call
// reserves what its request is estimated to cost before it goes out, and
// settles with what it cost once answered, so that the concurrent turns of
// one correspondent, and the calls of one long turn, stop at the budget
// (a correspondent overspends by one call at most). The
// value is read when it changes (fae follows its own names), not per
// turn, and the built-ins cannot see it (sealed like the conversations).
import type { GuestPowers, Ref } from '../../daemon/endo-types.js';
import type { Logger } from '../../logging/log.js';
import type { OwnNamesWatch } from '../../daemon/own-names.js';
import { followOwnValue } from '../../daemon/own-value.js';
import { correspondentKeyOf } from '../../usage/usage-ledger.js';
import { REPORTED_ALREADY, inBackground } from '../../background.js';

export const BUDGET_NAME = 'budget';
/** Correspondents whose spending today fae keeps, at most (the oldest day goes first). */
export const BUDGET_ENTRIES = 4096;

export interface BudgetSettings {
  /** Tokens per correspondent per day; undefined: no budget. */
  readonly tokens: number | undefined;
  /** Whether the host's own messages count against a budget too. */
  readonly host: boolean;
}

export interface BudgetOptions {
  readonly settings: BudgetSettings;
  readonly logger: Logger;
  /** Tells the host (a text in fae's words; refusals are the caller's to log). */
  readonly tellHost: (text: string) => Promise<void>;
  readonly now?: () => number;
}

/** The value stored under `budget`, read as settings; undefined when it is not one. */
export const readBudgetValue = (value: unknown, fallback: BudgetSettings): BudgetSettings | undefined => {
  const isTokens = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n > 0;
  if (isTokens(value)) return harden({ ...fallback, tokens: value });
  if (typeof value !== 'object' || value === null) return undefined;
  const { tokens, host } = value as { tokens?: unknown; host?: unknown };
  if ((tokens !== undefined && !isTokens(tokens)) || (host !== undefined && typeof host !== 'boolean')) return undefined;
  return harden({ tokens: tokens ?? fallback.tokens, host: host ?? fallback.host });
};
harden(readBudgetValue);

/** The UTC day of `ms`; the same string for the whole day, so that every correspondent's entry shares it. */
const makeDayOf = () => {
  let last = '';
  return (ms: number) => {
    const day = new Date(ms).toISOString().slice(0, 10);
    if (day !== last) last = day;
    return last;
  };
};

/** What a correspondent spent on a day, and what its calls under way may still cost. */
interface Entry {
  readonly day: string;
  tokens: number;
  reserved: number;
  noticed: boolean;
}

/** A model call's claim on its correspondent's budget, until it says what it cost. */
export interface BudgetClaim {
  /** Counts what the call cost (input and output tokens) in place of what it reserved; once. */
  readonly settle: (tokens: number) => void;
}

const FREE: BudgetClaim = harden({ settle: () => {} });

/** The error a model call past its correspondent's budget fails with; the turn then ends with BUDGET_NOTICE. */
export class BudgetReached extends Error {
  constructor() {
    super("the correspondent has used today's budget of model tokens");
    this.name = 'BudgetReached';
  }
}
harden(BudgetReached);

export const makeBudget = ({ settings, logger, tellHost, now = Date.now }: BudgetOptions) => {
  const dayOf = makeDayOf();
  /**
   * What each correspondent spent on `day`, and whether it was told it is
   * past its budget; under the short key usage keeps it by, not its id of
   * some 200 characters, kept for every correspondent of the day.
   */
  const spent = new Map<string, Entry>();
  let current: BudgetSettings = settings;
  /** Who reached the budget since the host was last told, and when that was. */
  const reached = new Set<string>();
  let hostToldDay: string | undefined;

  const entryOf = (correspondent: string) => {
    const day = dayOf(now());
    const key = correspondentKeyOf(correspondent);
    const known = spent.get(key);
    if (known?.day === day) return known;
    const fresh: Entry = { day, tokens: 0, reserved: 0, noticed: false };
    spent.delete(key);
    spent.set(key, fresh);
    if (spent.size > BUDGET_ENTRIES) spent.delete(spent.keys().next().value as string);
    return fresh;
  };

  /** 'notice' the first time a correspondent is found past its budget today ('quiet' after), and the host hears of it. */
  const noticeOnce = (entry: Entry, name: string): 'notice' | 'quiet' => {
    if (entry.noticed) return 'quiet';
    entry.noticed = true;
    reached.add(name);
    logger.event('budget-reached', { tokens: current.tokens });
    // It catches what the host's mail refuses, and logs it.
    inBackground(tellHostOnceADay(), REPORTED_ALREADY);
    return 'notice';
  };

  const tellHostOnceADay = async () => {
    const day = dayOf(now());
    if (hostToldDay === day || reached.size === 0) return;
    hostToldDay = day;
    const names = [...reached].join(', ');
    reached.clear();
    try {
      await tellHost(
        `Today's budget of ${current.tokens} tokens per correspondent (FAE_BUDGET_TOKENS, or "budget" in my directory) was reached by: ${names}. They get no model answer until tomorrow (UTC). I tell you of this once a day.`,
      );
    } catch (error) {
      logger.warn('host-report-failed', { kind: 'budget', error });
    }
  };

  return harden({
    /** The settings now in force. */
    settings: () => current,
    /** Takes the value stored under `budget` (undefined: none stored, the env's settings hold). */
    useValue: (value: unknown) => {
      if (value === undefined) {
        current = settings;
        return;
      }
      const read = readBudgetValue(value, settings);
      if (read === undefined) logger.warn('budget-unreadable', { name: BUDGET_NAME });
      current = read ?? settings;
      logger.event('budget-changed', { tokens: current.tokens, host: current.host });
    },
    /**
     * Whether `correspondent` may have a model call now: 'ok', or past its
     * budget, 'notice' for the first message of the day (told so) and
     * 'quiet' after.
     */
    check: (correspondent: string, name: string, fromHost: boolean): 'ok' | 'notice' | 'quiet' => {
      const { tokens, host } = current;
      if (tokens === undefined || (fromHost && !host)) return 'ok';
      const entry = entryOf(correspondent);
      if (entry.tokens + entry.reserved < tokens) return 'ok';
      return noticeOnce(entry, name);
    },
    /**
     * A model call's claim of `estimate` tokens for `correspondent`, or
     * undefined when its budget is spent (or claimed by its calls under way).
     */
    claim: (correspondent: string, name: string, fromHost: boolean, estimate: number): BudgetClaim | undefined => {
      const { tokens, host } = current;
      if (tokens === undefined || (fromHost && !host)) return FREE;
      const entry = entryOf(correspondent);
      if (entry.tokens + entry.reserved >= tokens) {
        noticeOnce(entry, name);
        return undefined;
      }
      entry.reserved += estimate;
      let settled = false;
      return harden({
        settle: (used: number) => {
          if (settled) return;
          settled = true;
          entry.reserved -= estimate;
          entry.tokens += used;
        },
      });
    },
  });
};
harden(makeBudget);
export type Budget = ReturnType<typeof makeBudget>;

/** Keeps `budget` up to date with the value in fae's directory, read again whenever that name changes. */
export const followBudgetValue = (powers: Ref<GuestPowers>, budget: Budget, ownNames: OwnNamesWatch) =>
  followOwnValue(powers, BUDGET_NAME, ownNames, value => budget.useValue(value));
harden(followBudgetValue);

/** What a correspondent past its budget reads. */
export const BUDGET_NOTICE =
  "Sorry — you have used today's share of my language model, so I cannot answer with it until tomorrow (UTC). My host knows of it.";

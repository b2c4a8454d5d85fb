// What fae's model calls cost, per correspondent and model (src/usage/):
// each turn's calls, and each summary made for a correspondent's
// conversation, counted as they end; the totals stored once the turn has
// answered (so the write never holds up an answer), in the background,
// and shown by status().
import type { Provider, Usage } from '../../../providers/types.js';
import type { GuestPowers, Ref } from '../../daemon/endo-types.js';
import type { Logger } from '../../logging/log.js';
import { builtInPrice, type Prices } from '../../usage/prices.js';
import { makeUsageLedger } from '../../usage/usage-ledger.js';
import { makeUsageStore } from '../../usage/usage-store.js';
import type { TurnUsage } from '../turn/turn.js';

export interface UsageAccountsOptions {
  readonly provider: Pick<Provider, 'model'>;
  /** FAE_PRICES, for the model fae runs on. */
  readonly prices: Prices | undefined;
  readonly logger: Logger;
}

export const makeUsageAccounts = (powers: Ref<GuestPowers>, { provider, prices, logger }: UsageAccountsOptions) => {
  const ledger = makeUsageLedger({
    pricesFor: model => (model === provider.model && prices !== undefined ? prices : builtInPrice(model)),
  });
  const store = makeUsageStore(powers, ledger, { logger });
  /** Something was counted that is not being stored yet. */
  let counted = false;
  return harden({
    start: store.start,
    stop: store.stop,
    /**
     * A turn of `correspondent` (`name`: the pet name fae has for it, if
     * any) spent `usage`: counted (stored at `save`). The totals it makes,
     * with their estimate.
     */
    turn: (correspondent: string, name: string | undefined, usage: TurnUsage) => {
      counted = true;
      return ledger.record(correspondent, name, provider.model, usage);
    },
    /** What was counted since the last call is stored, in the background (a turn has answered). */
    save: () => {
      if (!counted) return;
      counted = false;
      store.save();
    },
    /** A summary of `correspondent`'s conversation cost `usage` (stored with the end of its turn). */
    summary: (usage: Usage | undefined, correspondent: string) => {
      counted = true;
      ledger.record(correspondent, undefined, provider.model, {
        requests: 1,
        inputTokens: usage?.inputTokens ?? 0,
        cachedInputTokens: usage?.cachedInputTokens ?? 0,
        cacheWriteInputTokens: usage?.cacheWriteInputTokens ?? 0,
        outputTokens: usage?.outputTokens ?? 0,
      });
    },
    status: () => harden({ ...ledger.status(), storage: store.state() }),
  });
};
harden(makeUsageAccounts);
export type UsageAccounts = ReturnType<typeof makeUsageAccounts>;

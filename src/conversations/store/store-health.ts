// Whether fae's conversation store is usable, for status() and the log.
// The first refusal of an outage is one warning (not one per message), its
// end one event. Meanwhile a retry runs in the background, pausing with
// backoff between tries, until what was left unstored is stored (turns
// also retry on their own, so a store that is back is used at once).
import type { Logger } from '../../logging/log.js';
import type { Redact } from '../../logging/redact.js';
import { DEFAULT_RETRY_MS, backoffMs, pause, type RetryMs } from '../../daemon/backoff.js';
import { inBackground } from '../../background.js';

export interface StoreHealthOptions {
  readonly logger: Logger;
  readonly redact: Redact;
  /** Tries again what is outstanding; calls recovered() once nothing is. */
  readonly retry: () => Promise<void>;
  readonly retryMs?: RetryMs;
}

export interface StorageStatus {
  /** 'unavailable' from a refusal until nothing is left unstored. */
  readonly storage: 'ok' | 'unavailable';
  /** Why (redacted), or '' when ok. */
  readonly storageError: string;
}

export const makeStoreHealth = ({ logger, redact, retry, retryMs = DEFAULT_RETRY_MS }: StoreHealthOptions) => {
  let reason: string | undefined;
  let retrying = false;
  let stopped = false;

  const retryInBackground = async () => {
    for (let failures = 0; !stopped && reason !== undefined; failures += 1) {
      // Sequential on purpose: each try waits out the pause after the last.
      // eslint-disable-next-line no-await-in-loop
      await pause(backoffMs(retryMs, failures));
      // eslint-disable-next-line no-await-in-loop
      if (!stopped) await retry().catch(() => {});
    }
    retrying = false;
  };

  return harden({
    /** The store refused: fae goes on without storing until it can. */
    refused: (error: unknown) => {
      const text = redact(error instanceof Error ? error.message : String(error));
      if (reason === undefined) logger.warn('conversations-store-unavailable', { error: text });
      reason = text;
      if (!retrying && !stopped) {
        retrying = true;
        inBackground(retryInBackground(), error => logger.warn('conversations-store-retry-failed', { error }));
      }
    },
    /** Nothing is left unstored: an outage, if there was one, is over. */
    recovered: () => {
      if (reason === undefined) return;
      reason = undefined;
      logger.event('conversations-store-available');
    },
    status: (): StorageStatus =>
      harden({ storage: reason === undefined ? 'ok' : 'unavailable', storageError: reason ?? '' }),
    /** No more background tries (fae is cancelled). */
    stop: () => {
      stopped = true;
    },
  });
};
harden(makeStoreHealth);
export type StoreHealth = ReturnType<typeof makeStoreHealth>;

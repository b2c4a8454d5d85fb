// The usage totals (usage-ledger.ts) kept across restarts: one small value
// of their own in fae's directory, `usage` (their record as JSON text;
// a record stored by earlier versions is read as well), sealed from fae's
// tools like its conversations. It is read back at start, and written
// after a turn (one write at a time, so at most one per turn however many
// turns end together), never in the way of an answer: nobody waits for
// it. A write or read the daemon refuses is tried again with backoff;
// meanwhile the totals are counted in memory as ever, and nothing is
// written over the stored totals before they are read (they are added to
// what was counted meanwhile). Writes come at most once per WRITE_GAP_MS:
// the record holds up to 200 correspondents (some 30 KB), and with many
// correspondents writing, one write per turn was most of what fae sent the
// daemon; turns that end within the gap are written together (a crash
// loses at most the last gap's counts).
import { E } from '@endo/far';
import { passStyleOf, type Passable } from '@endo/marshal';
import type { GuestPowers, Ref } from '../daemon/endo-types.js';
import type { Logger } from '../logging/log.js';
import { DEFAULT_RETRY_MS, backoffMs, pause, type RetryMs } from '../daemon/backoff.js';
import { usageRecordIn, type UsageLedger } from './usage-ledger.js';

export const USAGE_NAME = 'usage';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The least time between two writes of the totals, in ms. */
export const WRITE_GAP_MS = 1000;

export interface UsageStoreOptions {
  readonly logger: Logger;
  readonly retryMs?: RetryMs;
  readonly writeGapMs?: number;
}

export const makeUsageStore = (powers: Ref<GuestPowers>, ledger: UsageLedger, { logger, retryMs = DEFAULT_RETRY_MS, writeGapMs = WRITE_GAP_MS }: UsageStoreOptions) => {
  /** The stored totals are read (or there were none): writing replaces nothing unknown. */
  let read = false;
  /** The name holds something that is not fae's (a directory): it is left alone, and nothing is stored. */
  let taken = false;
  let unsaved = false;
  let stopped = false;
  let failures = 0;
  /** When the last write ended (Date.now()); none yet: long ago. */
  let lastWriteAt = -Infinity;
  let running: Promise<void> | undefined;

  /** Reads what is stored, once, into the ledger. */
  const readBack = async () => {
    if (!(await E(powers).has(USAGE_NAME))) return;
    const value: unknown = await E(powers).lookup(USAGE_NAME);
    if (passStyleOf(value as Passable) === 'remotable') {
      taken = true;
      logger.warn('usage-name-taken', { name: USAGE_NAME, problem: 'it holds a capability, which fae leaves alone; usage totals are not stored' });
      return;
    }
    try {
      ledger.restore(usageRecordIn(value));
    } catch (error) {
      logger.warn('usage-unreadable', { name: USAGE_NAME, error: messageOf(error) });
    }
  };

  const step = async () => {
    if (!read) {
      await readBack();
      read = true;
    }
    if (!unsaved || taken) return;
    // Turns that end meanwhile are written with this one.
    const wait = lastWriteAt + writeGapMs - Date.now();
    // A timer that keeps the process alive, unlike pause(): a write is due.
    if (wait > 0) await new Promise(resolve => setTimeout(resolve, wait));
    if (stopped) return;
    unsaved = false;
    try {
      await E(powers).storeValue(ledger.toText(), USAGE_NAME);
    } catch (error) {
      unsaved = true;
      throw error;
    } finally {
      lastWriteAt = Date.now();
    }
  };

  const run = async () => {
    while (!stopped && (!read || (unsaved && !taken))) {
      try {
        // eslint-disable-next-line no-await-in-loop -- one daemon call at a time, in order
        await step();
        if (failures > 0) logger.event('usage-store-available', { name: USAGE_NAME });
        failures = 0;
      } catch (error) {
        if (failures === 0) logger.warn('usage-store-unavailable', { name: USAGE_NAME, error: messageOf(error) });
        failures += 1;
        // eslint-disable-next-line no-await-in-loop -- waiting before the next try is the point
        await pause(backoffMs(retryMs, failures - 1));
      }
    }
  };

  const kick = () => {
    if (running !== undefined) return;
    running = run().finally(() => {
      running = undefined;
    });
  };

  return harden({
    /** Reads the stored totals (in the background, tried again while refused). */
    start: kick,
    /** The totals changed (a turn ended): they are written, in the background. */
    save: () => {
      unsaved = true;
      kick();
    },
    /** Stops trying (fae is cancelled). */
    stop: () => {
      stopped = true;
    },
    /** For status(): whether the totals shown are all stored. */
    state: (): 'saved' | 'unsaved' | 'unread' | 'not stored' =>
      taken ? 'not stored' : !read ? 'unread' : unsaved ? 'unsaved' : 'saved',
    /** Resolves when nothing is being read or written (tests). */
    settled: async () => {
      while (running !== undefined) {
        // eslint-disable-next-line no-await-in-loop
        await running;
      }
    },
  });
};
harden(makeUsageStore);
export type UsageStore = ReturnType<typeof makeUsageStore>;

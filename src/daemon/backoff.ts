// Waiting before a call the daemon refused is tried again, or a
// subscription made again: a pause that doubles with each failure in a row,
// up to a ceiling. Shared by every follower fae keeps (tools/, its own
// names) and by the conversation store.

/** First pause and ceiling, in ms. */
export interface RetryMs {
  readonly first: number;
  readonly max: number;
}

export const DEFAULT_RETRY_MS: RetryMs = harden({ first: 100, max: 30_000 });

/** The pause after `failures` failures in a row (0: the first). */
export const backoffMs = (retryMs: RetryMs, failures: number) =>
  Math.min(retryMs.max, retryMs.first * 2 ** failures);
harden(backoffMs);

/** Resolves after `ms`; the timer does not keep the process alive. */
export const pause = (ms: number) =>
  new Promise<void>(resolve => {
    const timer = setTimeout(resolve, ms);
    timer.unref?.();
  });
harden(pause);

/**
 * Runs `attempt` until it resolves, at most `attempts` times, pausing
 * between tries as backoffMs says; rejects with the last failure.
 */
export const retrying = async <T>(attempts: number, retryMs: RetryMs, attempt: () => Promise<T>): Promise<T> => {
  for (let failures = 0; ; failures += 1) {
    try {
      // Sequential on purpose: each try follows the failure of the last.
      // eslint-disable-next-line no-await-in-loop
      return await attempt();
    } catch (error) {
      if (failures + 1 >= attempts) throw error;
    }
    // A timer that keeps the process alive, unlike pause(): a caller is waiting for the answer.
    // eslint-disable-next-line no-await-in-loop
    await new Promise(resolve => setTimeout(resolve, backoffMs(retryMs, failures)));
  }
};
harden(retrying);

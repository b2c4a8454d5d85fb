// Waiting before a subscription to the daemon is made again: a pause that
// doubles with each failure in a row, up to a ceiling. Shared by every
// follower fae keeps (tools/, its own names).

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

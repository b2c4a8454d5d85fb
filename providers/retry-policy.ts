// When to try an LLM request again, and how long to wait first. Pure
// functions: the clock and the randomness come in as arguments.

/** First backoff delay; doubled for each further retry. */
export const BASE_DELAY_MS = 500;
/** Backoff never grows beyond this. */
export const MAX_BACKOFF_MS = 8_000;
/**
 * A server asking us to wait longer than this is not retried: the caller gets
 * the error now instead of a turn that hangs for minutes.
 */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Rate limits, overload and server errors are worth another attempt; a client
 * error (bad request, auth, unknown model) will fail the same way again.
 * 408 and 409 are included because the big APIs use them for transient
 * request timeouts and lock contention. 501 is not: a server that does not
 * implement something (streaming, say) will not have it a second later.
 */
export const isRetryableStatus = (status: number): boolean =>
  status === 408 || status === 409 || status === 429 || (status >= 500 && status !== 501);
harden(isRetryableStatus);

type HeaderReader = { get(name: string): string | null };

/**
 * The wait a server asked for, in ms, or undefined when it asked for none.
 * Understands retry-after-ms (OpenAI, Anthropic), and retry-after as seconds
 * or as an HTTP date.
 */
export const parseRetryAfter = (headers: HeaderReader, now: number): number | undefined => {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) {
      return value;
    }
  }
  const after = headers.get('retry-after');
  if (after === null || after.trim() === '') {
    return undefined;
  }
  const seconds = Number(after);
  if (Number.isFinite(seconds)) {
    return seconds >= 0 ? seconds * 1000 : undefined;
  }
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
};
harden(parseRetryAfter);

/**
 * Exponential backoff with jitter for retry number `retry` (0 for the first
 * retry): half the delay is fixed, half random, so clients that failed
 * together do not come back together.
 */
export const backoffDelay = (retry: number, random: () => number): number => {
  const ceiling = Math.min(MAX_BACKOFF_MS, BASE_DELAY_MS * 2 ** retry);
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
};
harden(backoffDelay);

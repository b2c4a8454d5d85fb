// The one HTTP layer under all three SDKs. Each SDK is built with its own
// retries off and this fetch in their place, so every provider gets the same
// policy: a timeout per attempt (for streamed answers, a liveness watch),
// and 429/5xx retried with backoff and jitter, honouring retry-after, at
// most maxRetries times. The final response, good or bad, goes back to the
// SDK, which turns it into a result or its error.
import {
  MAX_RETRY_AFTER_MS,
  backoffDelay,
  isRetryableStatus,
  parseRetryAfter,
} from './retry-policy.js';
import { LlmStallError, LlmTimeoutError } from './errors.js';
import { watchLiveness, type LivenessLimits, type LivenessWatch } from './liveness.js';
import type { Fetch } from './types.js';

/**
 * Waits `ms`; when `signal` aborts first, rejects at once with its reason
 * (and lets go of its timer).
 */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** The Sleep of a real timer. */
export const abortableSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    // Unref'd: a wait before a retry keeps no process alive that has nothing else to do (a test worker whose caller is gone).
    timer.unref?.();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
harden(abortableSleep);

export interface RetryingFetchOptions {
  readonly maxRetries: number;
  readonly timeoutMs: number;
  readonly sleep: Sleep;
  readonly random: () => number;
  readonly now: () => number;
  readonly fetch: Fetch;
  /**
   * For streamed answers: how long the model may read before its answer
   * begins, and then go silent within it (liveness.ts); such an attempt
   * that runs out is aborted with an LlmStallError, and is bounded by
   * these instead of timeoutMs (a long answer that keeps coming is not
   * cut). Absent for plain requests, whose answer comes whole only once
   * the model is done.
   */
  readonly liveness?: LivenessLimits;
  /** Receives one line per attempt; given only when FAE_DEBUG=1, and already redacting. */
  readonly debugLog?: (line: string) => void;
}

/**
 * The response with its body read through `watch`: every piece is shown
 * to it, and the body's end, failure or cancellation stops it.
 */
const watchBody = (response: Response, watch: LivenessWatch): Response => {
  if (response.body === null) {
    watch.stop();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          watch.stop();
          controller.close();
          return;
        }
        watch.bytes(value);
        controller.enqueue(value);
      } catch (error) {
        watch.stop();
        throw error;
      }
    },
    cancel(reason) {
      watch.stop();
      return reader.cancel(reason);
    },
  });
  const { status, statusText, headers } = response;
  return new Response(body, { status, statusText, headers });
};

const describeTarget = (input: Parameters<Fetch>[0], init?: RequestInit) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  return `${init?.method ?? 'GET'} ${url}`;
};

/**
 * A connection that broke before any answer came: most often a kept-alive
 * socket the server (or a proxy) closed just as the request went out. The
 * server never saw the request, so sending it again is safe; a refused or
 * unresolvable host, by contrast, is not worth a retry.
 */
const isBrokenBeforeAnswer = (error: unknown): boolean => {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth += 1) {
    const { code } = current as { code?: unknown };
    if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
};

const discardBody = async (response: Response) => {
  try {
    await response.body?.cancel();
  } catch {
    // Nothing to free.
  }
};

export const makeRetryingFetch = (options: RetryingFetchOptions): Fetch => {
  const { maxRetries, timeoutMs, liveness, sleep, random, now, fetch: innerFetch, debugLog } = options;

  const attempt = async (input: Parameters<Fetch>[0], init: RequestInit | undefined) => {
    // The timeout and the liveness watch abort with their error as the
    // reason, which fetch rejects with, and the body stream too: a reply
    // that stops halfway is a timeout (or a stall) as well, and the
    // connection is closed either way. The timer runs on while the SDK
    // reads the body, so it is not cleared here; unref'd, it keeps nothing alive.
    const ended = new AbortController();
    const end = (reason: Error) => ended.abort(reason);
    const watch = liveness === undefined ? undefined : watchLiveness(liveness, phase => end(new LlmStallError(liveness, phase)));
    if (watch === undefined) {
      const timer = setTimeout(() => end(new LlmTimeoutError(timeoutMs)), timeoutMs);
      timer.unref?.();
    }
    const signal = init?.signal ? AbortSignal.any([init.signal, ended.signal]) : ended.signal;
    try {
      const response = await innerFetch(input, { ...init, signal });
      return watch ? watchBody(response, watch) : response;
    } catch (error) {
      watch?.stop();
      throw error;
    }
  };

  const retryingFetch = async (input: Parameters<Fetch>[0], init?: RequestInit) => {
    const target = describeTarget(input, init);
    for (let retry = 0; ; retry += 1) {
      // Retries are sequential by nature: each waits on the last answer.
      let response: Response;
      try {
        // eslint-disable-next-line no-await-in-loop
        response = await attempt(input, init);
      } catch (error) {
        if (!isBrokenBeforeAnswer(error) || retry >= maxRetries) throw error;
        debugLog?.(`${target} -> connection broke before an answer (attempt ${retry + 1} of ${maxRetries + 1})`);
        // eslint-disable-next-line no-await-in-loop
        await sleep(backoffDelay(retry, random), init?.signal ?? undefined);
        continue;
      }
      debugLog?.(`${target} -> ${response.status} (attempt ${retry + 1} of ${maxRetries + 1})`);
      if (response.ok || !isRetryableStatus(response.status) || retry >= maxRetries) {
        return response;
      }
      const asked = parseRetryAfter(response.headers, now());
      if (asked !== undefined && asked > MAX_RETRY_AFTER_MS) {
        return response;
      }
      // eslint-disable-next-line no-await-in-loop
      await discardBody(response);
      // An abort ends the wait at once: the caller no longer wants an answer.
      // eslint-disable-next-line no-await-in-loop
      await sleep(asked ?? backoffDelay(retry, random), init?.signal ?? undefined);
    }
  };
  return harden(retryingFetch) as Fetch;
};
harden(makeRetryingFetch);

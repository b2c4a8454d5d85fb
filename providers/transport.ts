// What every adapter needs besides its SDK: the retrying, timed fetch, the
// redactor, the debug log, and the test seams that feed them.
import { makeEnvRedactor, type Redact } from '../src/logging/redact.js';
import type { Env, ProviderConfig } from './config.js';
import { MAX_RETRY_AFTER_MS } from './retry-policy.js';
import { abortableSleep, makeRetryingFetch, type Fetch, type Sleep } from './retrying-fetch.js';
import { makeAnswerCheckingFetch } from './answer-check.js';

/** Seams for tests and embedders; every field has a real default. */
export interface ProviderOptions {
  /** Waits between retries, ending at once on abort (default: a timer). */
  readonly sleep?: Sleep;
  /** Jitter source in [0, 1) (default: Math.random). */
  readonly random?: () => number;
  /** Clock for retry-after dates (default: Date.now). */
  readonly now?: () => number;
  /** The HTTP client under the SDKs (default: the global fetch). */
  readonly fetch?: Fetch;
  /** Where debug lines go when FAE_DEBUG=1 (default: console.error). */
  readonly debugLog?: (line: string) => void;
}

export interface Transport {
  readonly fetch: Fetch;
  readonly redact: Redact;
  /** Redacted debug output; a no-op unless FAE_DEBUG=1. */
  readonly debug: (line: string) => void;
  /**
   * The SDK's own timeout covers all our attempts and waits, so it never cuts
   * in before our per-attempt timeout and retry policy have run their course.
   */
  readonly sdkTimeoutMs: number;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

export const makeTransport = (
  config: ProviderConfig,
  env: Env,
  options: ProviderOptions = {},
): Transport => {
  const redact = makeEnvRedactor(env);
  // Debug output (FAE_DEBUG=1 only, redacted) goes to stderr by default.
  // eslint-disable-next-line no-console
  const sink = options.debugLog ?? ((line: string) => console.error(line));
  const debug = config.debug
    ? (line: string) => sink(redact(`[fae provider ${config.kind}] ${line}`))
    : () => {};
  const retryingFetch = makeRetryingFetch({
    maxRetries: config.maxRetries,
    timeoutMs: config.timeoutMs,
    sleep: options.sleep ?? abortableSleep,
    random: options.random ?? Math.random,
    now: options.now ?? Date.now,
    fetch: options.fetch ?? globalThis.fetch,
    ...(config.debug ? { debugLog: debug } : {}),
  });
  // A 200 that is not JSON is an error, not an empty reply.
  const fetch = makeAnswerCheckingFetch(retryingFetch);
  const sdkTimeoutMs = Math.min(
    MAX_TIMER_MS,
    (config.timeoutMs + MAX_RETRY_AFTER_MS) * (config.maxRetries + 1),
  );
  return harden({ fetch, redact, debug, sdkTimeoutMs });
};
harden(makeTransport);

// What every adapter needs besides its SDK: the retrying, timed fetches
// (one for streamed requests, watched for stalls; one for plain ones), the
// redactor, the debug log, the event log, and the test seams that feed them.
import { makeEnvRedactor, type Redact } from '../src/logging/redact.js';
import type { Env, ProviderConfig } from './config.js';
import { MAX_RETRY_AFTER_MS } from './retry-policy.js';
import { abortableSleep, makeRetryingFetch, type Sleep } from './retrying-fetch.js';
import type { Fetch } from './types.js';
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
  /**
   * Told of events the operator should know about, one call each, with
   * short fields that are already redacted: 'llm-streaming-unsupported'
   * (fields provider, host, reason), once per provider, when its server
   * turns out unable to stream, and 'llm-field-refused' (provider, host,
   * field), once per field, when it refuses a cache hint the provider
   * then leaves out (default: none).
   */
  readonly log?: ProviderLog;
}

export type ProviderLog = (event: string, fields: Readonly<Record<string, unknown>>) => void;

export interface Transport {
  /** For plain requests. */
  readonly fetch: Fetch;
  /** For streamed requests: stalls are watched, and a plain answer is a NotStreamedError. */
  readonly streamFetch: Fetch;
  readonly redact: Redact;
  /** Redacted debug output; a no-op unless FAE_DEBUG=1. */
  readonly debug: (line: string) => void;
  readonly log: ProviderLog;
  /**
   * The SDK's own timeout covers all our attempts and waits, so it never cuts
   * in before our per-attempt timeout and retry policy have run their course.
   */
  readonly sdkTimeoutMs: number;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * What both Stainless-generated SDKs (Anthropic, OpenAI) are built with:
 * `fetch` (one of the transport's) in place of theirs, their own retries
 * off (ours run in the fetch), a timeout that outlasts ours, and their
 * logging off (we never print).
 */
export const sdkClientOptions = (config: ProviderConfig, transport: Transport, fetch: Fetch) => ({
  baseURL: config.host,
  maxRetries: 0,
  timeout: transport.sdkTimeoutMs,
  fetch,
  logLevel: 'off' as const,
});
harden(sdkClientOptions);

/** `isPlainAnswer` tells the API's plain answer, for streamed requests answered with one. */
export const makeTransport = (
  config: ProviderConfig,
  env: Env,
  options: ProviderOptions,
  isPlainAnswer: (value: unknown) => boolean,
): Transport => {
  const redact = makeEnvRedactor(env);
  // Debug output (FAE_DEBUG=1 only, redacted) goes to stderr by default.
  // eslint-disable-next-line no-console
  const sink = options.debugLog ?? ((line: string) => console.error(line));
  const debug = config.debug
    ? (line: string) => sink(redact(`[fae provider ${config.kind}] ${line}`))
    : () => {};
  const policy = {
    maxRetries: config.maxRetries,
    timeoutMs: config.timeoutMs,
    sleep: options.sleep ?? abortableSleep,
    random: options.random ?? Math.random,
    now: options.now ?? Date.now,
    fetch: options.fetch ?? globalThis.fetch,
    ...(config.debug ? { debugLog: debug } : {}),
  };
  // A 200 that is not JSON (or, asked for a stream, not a stream) is an
  // error, not an empty reply.
  const fetch = makeAnswerCheckingFetch(makeRetryingFetch(policy));
  const streamFetch = makeAnswerCheckingFetch(
    makeRetryingFetch({ ...policy, liveness: { firstTokenMs: config.firstTokenMs, stallMs: config.stallMs } }),
    isPlainAnswer,
  );
  const sdkTimeoutMs = Math.min(
    MAX_TIMER_MS,
    // A streamed answer's headers may wait until the model has read its prompt.
    (Math.max(config.timeoutMs, config.firstTokenMs) + MAX_RETRY_AFTER_MS) * (config.maxRetries + 1),
  );
  // Wrapped, so that the caller's function is not hardened with the
  // transport, and so that a log that fails never fails a model call.
  const log: ProviderLog = (event, fields) => {
    try {
      options.log?.(event, harden(fields));
    } catch {
      // Nowhere left to report it.
    }
  };
  return harden({ fetch, streamFetch, redact, debug, log, sdkTimeoutMs });
};
harden(makeTransport);

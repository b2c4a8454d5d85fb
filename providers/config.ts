// The LLM settings (the LAL_* variables), parsed and checked once, with no
// network, into a frozen record. Setup scripts call readProviderConfig(env) to
// fail before provisioning anything; the agent calls it again at startup.
import { q } from '@endo/errors';
import { redactUrl } from '../src/logging/redact.js';
import type { ProviderKind } from './types.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface ProviderConfig {
  readonly kind: ProviderKind;
  /**
   * Base URL of the API, exactly as LAL_HOST gave it (or the default). It
   * may carry a password or a key: show it only through redactUrl.
   */
  readonly host: string;
  readonly model: string;
  /** LAL_AUTH_TOKEN. A secret: never print this field. */
  readonly authToken: string | undefined;
  /** Completion length cap sent with every request (LAL_MAX_TOKENS). */
  readonly maxTokens: number;
  /** Window of recent messages sent to the model (LAL_MAX_MESSAGES). */
  readonly maxMessages: number | undefined;
  /** Retries after the first attempt, for 429 and 5xx (LAL_MAX_RETRIES). */
  readonly maxRetries: number;
  /** Upper bound on one HTTP attempt, in ms (LAL_TIMEOUT_MS). */
  readonly timeoutMs: number;
  /**
   * Longest a streamed answer may take to begin, in ms (LAL_FIRST_TOKEN_MS):
   * the model reading its prompt, or loading. Word of progress from the
   * server (llama.cpp's prompt_progress) starts it again; keep-alives do not.
   */
  readonly firstTokenMs: number;
  /** Longest silence allowed in a streamed answer once it has begun, in ms (LAL_STALL_MS). */
  readonly stallMs: number;
  /**
   * fae's budget for one request, in tokens (FAE_CONTEXT_TOKENS): what
   * Ollama is asked to hold (num_ctx), within what the model can.
   */
  readonly contextTokens: number;
  /** FAE_DEBUG=1: redacted request summaries go to the debug log. */
  readonly debug: boolean;
  /**
   * How long Ollama keeps the model loaded after a request (FAE_KEEP_ALIVE,
   * sent as keep_alive): a duration text such as '30m', or seconds as a
   * number (negative: for ever). Undefined leaves Ollama's own default.
   */
  readonly keepAlive: string | number | undefined;
}

export const DEFAULT_HOST = 'http://localhost:11434';
export const DEFAULT_ANTHROPIC_MODEL = 'claude-opus-4-5-20251101';
export const DEFAULT_MODEL = 'qwen3';
export const DEFAULT_MAX_TOKENS = 4096;
export const DEFAULT_MAX_RETRIES = 2;
export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_STALL_MS = 30_000;
export const DEFAULT_CONTEXT_TOKENS = 32_000;
/** Five minutes: a CPU reads a few thousand tokens of prompt in tens of seconds, a large model loads in more. */
export const DEFAULT_FIRST_TOKEN_MS = 300_000;

const PROVIDER_KINDS: readonly ProviderKind[] = harden(['anthropic', 'openai', 'ollama']);

/** A setting that is absent or blank counts as unset: setup scripts forward '' for unset. */
const readText = (env: Env, name: string): string | undefined => {
  const text = env[name];
  return text === undefined || text.trim() === '' ? undefined : text.trim();
};

const readInteger = (
  env: Env,
  name: string,
  fallback: number | undefined,
  minimum: number,
): number | undefined => {
  const text = readText(env, name);
  if (text === undefined) {
    return fallback;
  }
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < minimum) {
    const what = minimum === 0 ? 'a whole number (0 or more)' : 'a positive whole number';
    throw Error(`${name} must be ${what}, not ${q(text)}`);
  }
  return value;
};

/** One or more numbers with a unit, as Go's time.ParseDuration reads them (which Ollama uses). */
const GO_DURATION = /^-?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/;

/**
 * FAE_KEEP_ALIVE in Ollama's syntax: a duration ('30m', '1h30m', '-1m')
 * or a number of seconds ('0' unloads the model at once, '-1' keeps it
 * for ever), which is sent as a number, as Ollama reads a bare number.
 */
const readKeepAlive = (env: Env): string | number | undefined => {
  const text = readText(env, 'FAE_KEEP_ALIVE');
  if (text === undefined) return undefined;
  if (/^-?\d+$/.test(text) && Number.isSafeInteger(Number(text))) return Number(text);
  if (GO_DURATION.test(text)) return text;
  throw Error(
    `FAE_KEEP_ALIVE must be a duration such as "30m", "1h30m" or "90s", or a number of seconds (-1: for ever), not ${q(text)}`,
  );
};

/** Where each adapter looks when LAL_HOST is unset (LAL_PROVIDER chose it). */
const DEFAULT_HOST_FOR: Readonly<Record<ProviderKind, string>> = harden({
  anthropic: 'https://api.anthropic.com',
  // Ollama's own OpenAI-compatible endpoint: the local default either way.
  openai: `${DEFAULT_HOST}/v1`,
  ollama: DEFAULT_HOST,
});

const checkHost = (host: string): string => {
  let url: URL;
  try {
    url = new URL(host);
  } catch {
    throw Error(
      `LAL_HOST must be the LLM's base URL, such as ${q(DEFAULT_HOST)}, not ${q(redactUrl(host))}`,
    );
  }
  // new URL('localhost:11434') parses, with 'localhost:' as its scheme.
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw Error(
      `LAL_HOST must start with http:// or https://, not ${q(redactUrl(host))}; for example ${q(DEFAULT_HOST)}`,
    );
  }
  // The SDKs' fetch refuses a URL with credentials in it: every request would fail as unreachable.
  if (url.username !== '' || url.password !== '') {
    throw Error(
      `LAL_HOST must not carry a user name or password (${q(redactUrl(host))}); give the API key as LAL_AUTH_TOKEN instead`,
    );
  }
  return host;
};

/**
 * Which adapter serves a host. LAL_PROVIDER wins; otherwise upstream's rules:
 * a host containing 'anthropic.com' is Anthropic, one containing '/v1' is
 * OpenAI-compatible, anything else is Ollama.
 */
export const selectProviderKind = (host: string, provider: string | undefined): ProviderKind => {
  if (provider !== undefined) {
    const kind = provider.toLowerCase();
    if (!(PROVIDER_KINDS as readonly string[]).includes(kind)) {
      throw Error(
        `LAL_PROVIDER must be one of ${PROVIDER_KINDS.map(k => q(k)).join(', ')}, not ${q(provider)}`,
      );
    }
    return kind as ProviderKind;
  }
  if (host.includes('anthropic.com')) {
    return 'anthropic';
  }
  if (host.includes('/v1')) {
    return 'openai';
  }
  return 'ollama';
};
harden(selectProviderKind);

/**
 * Parse and check the LAL_* variables. Throws at once, naming the variable and
 * quoting its value, for anything the adapters could not use. Never reaches
 * the network.
 */
export const readProviderConfig = (env: Env): ProviderConfig => {
  const explicitHost = readText(env, 'LAL_HOST');
  const kind = selectProviderKind(
    explicitHost === undefined ? DEFAULT_HOST : checkHost(explicitHost),
    readText(env, 'LAL_PROVIDER'),
  );
  const host = explicitHost ?? DEFAULT_HOST_FOR[kind];
  const authToken = readText(env, 'LAL_AUTH_TOKEN');
  if (kind === 'anthropic' && authToken === undefined) {
    throw Error(
      `LAL_AUTH_TOKEN is required for Anthropic (LAL_HOST ${q(redactUrl(host))}); set it to your API key`,
    );
  }
  const model =
    readText(env, 'LAL_MODEL') ??
    (kind === 'anthropic' ? DEFAULT_ANTHROPIC_MODEL : DEFAULT_MODEL);
  return harden({
    kind,
    host,
    model,
    authToken,
    maxTokens: readInteger(env, 'LAL_MAX_TOKENS', DEFAULT_MAX_TOKENS, 1) as number,
    maxMessages: readInteger(env, 'LAL_MAX_MESSAGES', undefined, 1),
    maxRetries: readInteger(env, 'LAL_MAX_RETRIES', DEFAULT_MAX_RETRIES, 0) as number,
    timeoutMs: readInteger(env, 'LAL_TIMEOUT_MS', DEFAULT_TIMEOUT_MS, 1) as number,
    firstTokenMs: readInteger(env, 'LAL_FIRST_TOKEN_MS', DEFAULT_FIRST_TOKEN_MS, 1) as number,
    stallMs: readInteger(env, 'LAL_STALL_MS', DEFAULT_STALL_MS, 1) as number,
    contextTokens: readInteger(env, 'FAE_CONTEXT_TOKENS', DEFAULT_CONTEXT_TOKENS, 1) as number,
    debug: env.FAE_DEBUG === '1',
    keepAlive: readKeepAlive(env),
  });
};
harden(readProviderConfig);

/** LAL_STALL_MS alone, for what paces itself by it (fae's progress replies). */
export const stallMsOf = (env: Env): number => readInteger(env, 'LAL_STALL_MS', DEFAULT_STALL_MS, 1) as number;
harden(stallMsOf);

/** A one-line description that is safe to log: no token, no secret of LAL_HOST. */
export const describeProviderConfig = (config: ProviderConfig): string =>
  `${config.kind} model ${q(config.model)} at ${redactUrl(config.host)}`;
harden(describeProviderConfig);

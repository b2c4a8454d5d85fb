// Turning whatever an SDK threw into one clear Error that says what went
// wrong and which setting to fix. Each adapter first reduces its SDK's error
// to a Failure; the wording is shared so all providers fail alike.
import { q } from '@endo/errors';
import { redactUrl, type Redact } from '../src/logging/redact.js';
import type { ProviderConfig } from './config.js';
import { NotStreamedError, UnexpectedAnswerError, type UnexpectedAnswer } from './answer-check.js';

/** Thrown when one attempt outlives LAL_TIMEOUT_MS. */
export class LlmTimeoutError extends Error {
  override name = 'LlmTimeoutError';
  constructor(readonly timeoutMs: number) {
    // The SDKs recognise "timed out" and report a connection timeout.
    super(`the LLM request timed out after ${timeoutMs} ms`);
  }
}
harden(LlmTimeoutError);

/**
 * What went wrong with a model call, in terms a person can be told without
 * the host's setup: the LLM could not be reached, it refused the token, it
 * timed out or stalled, it answered something that is not an answer, or
 * anything else (an HTTP error, an unknown model).
 */
export type ProviderTrouble = 'unreachable' | 'refused' | 'timeout' | 'garbage' | 'context' | 'failed';

/**
 * What a provider's chat() rejects with: the operator's text (what failed,
 * where, the setting to change) and its trouble, so that those who tell
 * people about it need not read the text.
 */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly trouble: ProviderTrouble,
  ) {
    super(message);
  }
}
harden(ProviderError);

/**
 * A streamed answer in which nothing came for LAL_STALL_MS: not its first
 * piece after the request was sent, or not its next one. The fetch under
 * the SDKs aborts with one (its message must never say "timed out", which
 * the SDKs would take for their own timeout); chat() rejects with one that
 * names the server. Like LlmTimeoutError it is not retried: the server has
 * the request and may be working on it (a retry would pay twice), text may
 * already have reached onText, and a model that stalled once is likely to
 * again; the caller hears of it now instead.
 */
export class LlmStallError extends ProviderError {
  override name = 'LlmStallError';
  constructor(
    readonly limits: { readonly firstTokenMs: number; readonly stallMs: number },
    /** Whether the answer had not begun (the model still reading) or went silent. */
    readonly phase: 'start' | 'answer',
    message = phase === 'start'
      ? `the LLM did not begin its answer within ${limits.firstTokenMs / 1000} s`
      : `the LLM's answer went ${limits.stallMs / 1000} s without a word`,
  ) {
    // To the person who asked, a stall is a model that took too long.
    super(message, 'timeout');
  }
}
harden(LlmStallError);

/**
 * The server could not take a request this long: more than its context
 * holds. `contextTokens` is what it holds, when it said.
 */
export class ContextOverflowError extends ProviderError {
  override name = 'ContextOverflowError';
  constructor(
    message: string,
    /** What the server says it holds, when it says. */
    readonly contextTokens: number | undefined,
    /** What the server counted of the refused request, when it says: what fae's estimate of it should have been. */
    readonly requestTokens?: number,
  ) {
    super(message, 'context');
  }
}
harden(ContextOverflowError);

/**
 * How much a server whose answer `message` says the request was too long
 * can hold, if it says (llama.cpp: "exceeds the available context size
 * (4096 tokens)"; OpenAI and vLLM: "maximum context length is 4096
 * tokens"; Anthropic: "prompt is too long: 210000 tokens > 200000
 * maximum"); undefined when it is not that answer. The number is
 * undefined when only the fact is said.
 */
export const readContextOverflow = (
  status: number,
  message: string,
): { readonly contextTokens: number | undefined; readonly requestTokens?: number } | undefined => {
  if (status !== 400 && status !== 413 && status !== 500) return undefined;
  const limit =
    /context size \((\d+) tokens\)/.exec(message) ??
    /maximum context length is (\d+)/i.exec(message) ??
    /> (\d+) maximum/.exec(message) ??
    /context (?:window|length) (?:is |of )?(\d+)/i.exec(message);
  const said = limit !== null || /exceeds? (?:the )?(?:available |maximum )?context|context[_ ]length[_ ]exceeded|prompt is too long/i.test(message);
  if (!said) return undefined;
  // llama.cpp: "request (9586 tokens) exceeds"; OpenAI, vLLM: "your messages resulted in 9586 tokens"; Anthropic: "too long: 210000 tokens >".
  const counted = /request \((\d+) tokens\)/.exec(message) ?? /resulted in (\d+) tokens/i.exec(message) ?? /too long: (\d+) tokens/i.exec(message);
  return harden({
    contextTokens: limit === null ? undefined : Number(limit[1]),
    ...(counted === null ? {} : { requestTokens: Number(counted[1]) }),
  });
};
harden(readContextOverflow);

/** A streamed answer that ended without the API's closing event. */
export class IncompleteStreamError extends Error {
  override name = 'IncompleteStreamError';
  constructor() {
    super('the streamed answer ended before its final event');
  }
}
harden(IncompleteStreamError);

export type Failure =
  | { readonly kind: 'status'; readonly status: number; readonly message: string }
  | { readonly kind: 'unreachable'; readonly detail: string | undefined }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'stall'; readonly phase: 'start' | 'answer' }
  | { readonly kind: 'incomplete' }
  /** A stream event that is not JSON; `message` is the parser's, which quotes it. */
  | { readonly kind: 'garbled'; readonly message: string }
  /** A plain answer (already parsed) to a request that asked for a stream. */
  | { readonly kind: 'not-streamed'; readonly answer: unknown }
  | { readonly kind: 'unexpected'; readonly answer: UnexpectedAnswer }
  | { readonly kind: 'other'; readonly message: string };


/**
 * The trouble a thrown value stands for: a ProviderError's, also as the
 * cause of another error, else 'failed'.
 */
export const troubleOf = (error: unknown): ProviderTrouble => {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth += 1) {
    if (current instanceof ProviderError) return current.trouble;
    current = (current as { cause?: unknown }).cause;
  }
  return 'failed';
};
harden(troubleOf);

const NETWORK_CODES = harden([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/** The first errno-style code in an error's cause chain, e.g. 'ECONNREFUSED'. */
const findNetworkCode = (error: unknown): string | undefined => {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth += 1) {
    const { code } = current as { code?: unknown };
    if (typeof code === 'string' && NETWORK_CODES.includes(code)) {
      return code;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
};

/** What our own errors in an error's cause chain say happened. */
const describeOwnError = (error: object): Failure | undefined => {
  if (error instanceof LlmTimeoutError) return { kind: 'timeout' };
  if (error instanceof LlmStallError) return { kind: 'stall', phase: error.phase };
  if (error instanceof IncompleteStreamError) return { kind: 'incomplete' };
  if (error instanceof NotStreamedError) return { kind: 'not-streamed', answer: error.answer };
  if (error instanceof UnexpectedAnswerError) return { kind: 'unexpected', answer: error.answer };
  return undefined;
};

/**
 * Failures every adapter recognises the same way: our own errors (the
 * timeout, the stall, answers we do not understand), and undici's "fetch
 * failed" with a network code somewhere in its causes.
 */
export const describeTransportFailure = (error: unknown): Failure | undefined => {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth += 1) {
    const own = describeOwnError(current);
    if (own) {
      return own;
    }
    current = (current as { cause?: unknown }).cause;
  }
  const code = findNetworkCode(error);
  if (code !== undefined) {
    return { kind: 'unreachable', detail: code };
  }
  if (error instanceof TypeError && error.message === 'fetch failed') {
    return { kind: 'unreachable', detail: undefined };
  }
  return undefined;
};
harden(describeTransportFailure);

/**
 * Is this 4xx about the model name rather than the URL or the request? A 404
 * that mentions a model is (Anthropic says just "model: <name>"); a 400 must
 * also say the model is missing, since 400s mention models for other reasons.
 */
const isUnknownModel = (status: number, message: string, model: string) => {
  const aboutModel = /model/i.test(message) || message.includes(model);
  if (status === 404) {
    return aboutModel;
  }
  return (
    status === 400 &&
    aboutModel &&
    /not[ _-]?found|does not exist|unknown model|no such model|not available/i.test(message)
  );
};

/** What an HTTP error other than a refused token says. */
const statusText = (status: number, serverMessage: string, config: ProviderConfig, at: string): string => {
  const said = serverMessage === '' ? '' : `: ${serverMessage}`;
  if (isUnknownModel(status, serverMessage, config.model)) {
    return `the LLM at ${at} does not know the model ${q(config.model)} (HTTP ${status}${said}); set LAL_MODEL to a model it serves`;
  }
  if (status === 404) {
    return `the LLM at ${at} has no ${config.kind} chat endpoint (HTTP 404${said}); check LAL_HOST, and LAL_PROVIDER if the URL does not say which API it speaks`;
  }
  if (status === 429) {
    return `the LLM at ${at} is rate limiting requests (HTTP 429${said}); gave up after ${config.maxRetries} retries (LAL_MAX_RETRIES)`;
  }
  if (status >= 500) {
    return `the LLM at ${at} failed with HTTP ${status}${said}; gave up after ${config.maxRetries} retries (LAL_MAX_RETRIES)`;
  }
  return `the LLM at ${at} rejected the request with HTTP ${status}${said}`;
};

const statusError = (status: number, serverMessage: string, config: ProviderConfig, at: string): ProviderError => {
  const overflow = readContextOverflow(status, serverMessage);
  if (overflow !== undefined) {
    const holds = overflow.contextTokens === undefined ? '' : ` (it holds ${overflow.contextTokens} tokens)`;
    return new ContextOverflowError(
      `the model ${q(config.model)} at ${at} cannot read a request this long${holds}: ${serverMessage}; ` +
        'give the model a larger context (llama.cpp: -c; Ollama: num_ctx), offer fewer built-in tools (FAE_BUILTINS), or send a shorter message ' +
        '(where the server does not say what it holds, set FAE_CONTEXT_TOKENS to it); /forget starts the conversation afresh',
      overflow.contextTokens,
      overflow.requestTokens,
    );
  }
  if (status === 401 || status === 403) {
    const said = serverMessage === '' ? '' : `: ${serverMessage}`;
    const what = config.authToken === undefined ? 'no LAL_AUTH_TOKEN is set' : 'LAL_AUTH_TOKEN was refused';
    return new ProviderError(
      `the LLM at ${at} denied access (HTTP ${status}${said}); ${what}: set LAL_AUTH_TOKEN to a valid API key for it`,
      'refused',
    );
  }
  return new ProviderError(statusText(status, serverMessage, config, at), 'failed');
};

const EXPECTED_ANSWERS = harden({
  openai: 'an OpenAI-compatible chat completion (JSON with "choices")',
  anthropic: 'an Anthropic message (JSON with "content" blocks)',
  ollama: 'an Ollama chat reply (JSON with a "message")',
});

const unexpectedAnswerError = (
  answer: UnexpectedAnswer,
  config: ProviderConfig,
  redact: Redact,
  at: string,
) =>
  new ProviderError(
    `the LLM at ${at} answered ${redact(answer.endpoint)} with something that is not ${EXPECTED_ANSWERS[config.kind]}: ` +
      `HTTP ${answer.status}, content-type ${redact(answer.contentType)}, starting ${q(redact(answer.sample))}; ` +
      'check that LAL_HOST is the API base URL itself, not a web page, proxy or login portal in front of it',
    'garbage',
  );

/**
 * The Error a provider's chat() rejects with. Everything the server said is
 * passed through the redactor, since a server may echo the key back.
 */
export const makeProviderError = (
  failure: Failure,
  config: ProviderConfig,
  redact: Redact,
): ProviderError => {
  // LAL_HOST may carry a password or a key in its query: never shown.
  const at = redactUrl(config.host);
  switch (failure.kind) {
    case 'status':
      return statusError(failure.status, redact(failure.message).slice(0, 500), config, at);
    case 'unreachable':
      if (failure.detail === 'ECONNRESET' || failure.detail === 'UND_ERR_SOCKET') {
        // The server was reached; the connection broke during the exchange.
        return new ProviderError(
          `the connection to the LLM at ${at} broke before its answer was complete (${failure.detail}); check the server, or a proxy in front of it`,
          'unreachable',
        );
      }
      return new ProviderError(
        `cannot reach the LLM at ${at}${failure.detail ? ` (${failure.detail})` : ''}; check LAL_HOST and that the server is running`,
        'unreachable',
      );
    case 'timeout':
      return new ProviderError(
        `the LLM at ${at} did not answer within ${config.timeoutMs} ms; raise LAL_TIMEOUT_MS or check the server`,
        'timeout',
      );
    case 'stall':
      return new LlmStallError(
        config,
        failure.phase,
        failure.phase === 'start'
          ? `the model ${q(config.model)} at ${at} had not begun its answer after ${config.firstTokenMs / 1000} s, and the server said nothing of progress, so its request was closed; ` +
              'check the server, or raise LAL_FIRST_TOKEN_MS if the model takes that long to read its prompt (a smaller FAE_CONTEXT_TOKENS gives it less to read)'
          : `the model ${q(config.model)} at ${at} went ${config.stallMs / 1000} s without a word in the middle of its answer, so its request was closed; ` +
              'check the server, or raise LAL_STALL_MS if the model is that slow',
      );
    case 'incomplete':
      return new ProviderError(
        `the LLM at ${at} ended its streamed answer before it was complete; check the server, or a proxy in front of it`,
        'unreachable',
      );
    case 'garbled':
      return new ProviderError(
        `the LLM at ${at} sent a stream event that is not valid JSON (${redact(failure.message).slice(0, 200)}); ` +
          'check that LAL_HOST is the API base URL itself, not a proxy that alters its answers',
        'garbage',
      );
    case 'not-streamed':
      return new ProviderError(`the LLM at ${at} answered a streamed request with a plain answer`, 'garbage');
    case 'unexpected':
      return unexpectedAnswerError(failure.answer, config, redact, at);
    default:
      return new ProviderError(`the ${config.kind} request to the LLM at ${at} failed: ${redact(failure.message)}`, 'failed');
  }
};
harden(makeProviderError);

/**
 * What the server said, from an SDK error: the message inside the parsed
 * error body (OpenAI { error: { message } } or { message }, Anthropic
 * { error: { message } }), else the SDK's text without its status prefix.
 */
export const serverMessageOf = (error: { readonly error?: unknown; readonly message: string }): string => {
  const body = error.error as { error?: { message?: unknown } | string; message?: unknown } | undefined;
  if (body && typeof body === 'object') {
    if (typeof body.error === 'string') return body.error;
    if (typeof body.error?.message === 'string') return body.error.message;
    if (typeof body.message === 'string') return body.message;
  }
  return error.message.replace(/^\d{3}\s+/, '');
};
harden(serverMessageOf);

/** The error classes of a Stainless-generated SDK (Anthropic, OpenAI). */
export interface SdkErrorClasses {
  readonly APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
  readonly APIConnectionError: abstract new (...args: never[]) => Error;
  readonly APIError: abstract new (...args: never[]) => Error & {
    readonly status?: number;
    readonly error?: unknown;
  };
}

/** Classifies what an Anthropic or OpenAI SDK call threw. */
export const describeSdkFailure = (error: unknown, sdk: SdkErrorClasses): Failure => {
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return { kind: 'timeout' };
  }
  const transport = describeTransportFailure(error);
  if (transport) {
    return transport;
  }
  if (error instanceof sdk.APIConnectionError) {
    return { kind: 'unreachable', detail: undefined };
  }
  if (error instanceof sdk.APIError) {
    // No status: an error event in the middle of a stream.
    return typeof error.status === 'number'
      ? { kind: 'status', status: error.status, message: serverMessageOf(error) }
      : { kind: 'other', message: serverMessageOf(error) };
  }
  return { kind: 'other', message: error instanceof Error ? error.message : String(error) };
};
harden(describeSdkFailure);

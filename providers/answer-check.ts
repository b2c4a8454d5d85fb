// Telling an answer we do not understand from an empty one. A proxy, a
// captive portal or a misconfigured gateway may answer 200 with an HTML
// page, or with JSON of another shape; the SDKs hand such a body back as if
// it were a reply, which read as "the model said nothing". Two checks make
// it an error instead: the fetch under every SDK refuses a 2xx body that is
// not JSON, and each adapter checks the JSON has the shape its API promises.
// Either way the error names the endpoint (no credentials, no query) and
// what came back: status, content type and the first characters. A request
// for a stream expects a stream; a plain answer of the right shape there
// means the server cannot stream (NotStreamedError), which the adapters
// take in stride.
import type { Fetch } from './types.js';

/** Characters of an unexpected body shown in the error. */
const SAMPLE_CHARS = 120;

export interface UnexpectedAnswer {
  /** Method, origin and path: never credentials or the query string. */
  readonly endpoint: string;
  readonly status: number;
  readonly contentType: string;
  /** The body's first characters, whitespace collapsed, not yet redacted. */
  readonly sample: string;
}

/**
 * Thrown by the checking fetch. Its message is fixed on purpose: the SDKs
 * read "timed out" in a fetch error's text as a timeout, and a page may
 * say anything.
 */
export class UnexpectedAnswerError extends Error {
  override name = 'UnexpectedAnswerError';
  constructor(readonly answer: UnexpectedAnswer) {
    super('the LLM server answered with a body that is not JSON');
  }
}
harden(UnexpectedAnswerError);

/**
 * Thrown by the checking fetch of streamed requests when the server sent a
 * plain answer of the API's own shape instead: it cannot stream. The
 * answer, already parsed, rides along so it need not be asked for again.
 */
export class NotStreamedError extends Error {
  override name = 'NotStreamedError';
  constructor(readonly answer: unknown) {
    super('the LLM server answered a streamed request with a plain answer');
  }
}
harden(NotStreamedError);

/** The endpoint as errors may show it: no user:password, no query. */
export const endpointOf = (url: string, method = 'POST'): string => {
  try {
    const parsed = new URL(url);
    return `${method} ${parsed.origin}${parsed.pathname}`;
  } catch {
    return `${method} (an invalid URL)`;
  }
};
harden(endpointOf);

/** The first characters of a body, on one line, printable. */
export const sampleOf = (text: string): string => {
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  return flat.length <= SAMPLE_CHARS ? flat : `${flat.slice(0, SAMPLE_CHARS)}…`;
};
harden(sampleOf);

const isJsonType = (contentType: string) => {
  const type = contentType.split(';')[0].trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
};

const urlOf = (input: Parameters<Fetch>[0]) =>
  typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;

/** Streams of events as the APIs send them: SSE (Anthropic, OpenAI), NDJSON (Ollama). */
const isStreamType = (contentType: string) =>
  ['text/event-stream', 'application/x-ndjson', 'application/ndjson'].includes(
    contentType.split(';')[0].trim().toLowerCase(),
  );

/**
 * Passes every response through, except a 2xx whose body is not JSON: a
 * JSON body labelled otherwise is relabelled (some servers say text/plain),
 * anything else is an UnexpectedAnswerError.
 *
 * Given `isPlainAnswer`, the fetch is for streamed requests instead: a 2xx
 * stream passes, and a 2xx body that is JSON is read whole, to be a
 * NotStreamedError when `isPlainAnswer` accepts it (the server cannot
 * stream) and an UnexpectedAnswerError when not.
 */
export const makeAnswerCheckingFetch = (
  inner: Fetch,
  isPlainAnswer?: (value: unknown) => boolean,
): Fetch => {
  const streamed = isPlainAnswer !== undefined;
  const checkingFetch = async (input: Parameters<Fetch>[0], init?: RequestInit) => {
    const response = await inner(input, init);
    const contentType = response.headers.get('content-type') ?? '';
    if (!response.ok || (streamed ? isStreamType(contentType) : isJsonType(contentType))) return response;
    const text = await response.text();
    const unexpected = () =>
      new UnexpectedAnswerError(
        harden({
          endpoint: endpointOf(urlOf(input), init?.method ?? 'GET'),
          status: response.status,
          contentType: contentType === '' ? '(none)' : contentType,
          sample: text === '' ? '(an empty body)' : sampleOf(text),
        }),
      );
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw unexpected();
    }
    if (streamed) {
      throw isPlainAnswer(value) ? new NotStreamedError(value) : unexpected();
    }
    const headers = new Headers(response.headers);
    headers.set('content-type', 'application/json');
    return new Response(text, { status: response.status, statusText: response.statusText, headers });
  };
  return harden(checkingFetch) as Fetch;
};
harden(makeAnswerCheckingFetch);

/** A parsed JSON reply of the wrong shape, described like a non-JSON one. */
export const wrongShape = (endpoint: string, value: unknown): UnexpectedAnswer => {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return harden({ endpoint, status: 200, contentType: 'application/json', sample: sampleOf(text) });
};
harden(wrongShape);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An OpenAI chat completion has a non-empty choices list of messages. */
export const isOpenAICompletion = (value: unknown): boolean =>
  isObject(value) &&
  Array.isArray(value.choices) &&
  value.choices.length > 0 &&
  isObject(value.choices[0]) &&
  isObject((value.choices[0] as Record<string, unknown>).message);
harden(isOpenAICompletion);

/** An Anthropic message has a list of content blocks, each with a type. */
export const isAnthropicMessage = (value: unknown): boolean =>
  isObject(value) &&
  Array.isArray(value.content) &&
  value.content.every(block => isObject(block) && typeof block.type === 'string');
harden(isAnthropicMessage);

/** An Ollama chat reply has a message (its content may be empty). */
export const isOllamaReply = (value: unknown): boolean =>
  isObject(value) && isObject(value.message);
harden(isOllamaReply);

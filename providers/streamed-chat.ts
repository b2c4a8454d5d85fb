// The one chat() flow every adapter shares. The request goes out asking
// for a stream; its events are assembled into the ChatResult as they come,
// the assistant's text handed to onText on the way. A server that cannot
// stream (it sends a plain answer instead, or refuses the streamed request,
// see refusesStreaming) is asked plainly from then on, and that is logged
// once. Each adapter supplies only its SDK calls and wire format (ChatWire).
import { redactUrl } from '../src/logging/redact.js';
import type { TextSink } from './answer-builder.js';
import { endpointOf, wrongShape } from './answer-check.js';
import type { ProviderConfig } from './config.js';
import { makeProviderError, type Failure } from './errors.js';
import type { Transport } from './transport.js';
import { truncateMessages } from './truncate.js';
import type { CacheHints, ChatMessage, ChatOptions, ChatResult, Provider, ToolSchema } from './types.js';

/** Builds one answer from its stream's events, in order. */
export interface StreamAssembler<Event> {
  /** Takes the next event; assistant text in it goes to the sink at once. */
  readonly take: (event: Event) => void;
  /** The answer, once the closing event came; an IncompleteStreamError if it never did. */
  readonly finish: () => ChatResult;
}

/** What an adapter supplies: its SDK calls and its wire format. */
export interface ChatWire<Request, Event> {
  /**
   * The API's request for a window of the transcript (already cut to
   * LAL_MAX_MESSAGES), asking for caching as the API wants when `cache`
   * is given.
   */
  readonly buildRequest: (
    messages: readonly ChatMessage[],
    tools: readonly ToolSchema[],
    cache: CacheHints | undefined,
  ) => Request;
  /** Sends the request asking for a stream; its events, once the answer has begun. */
  readonly openStream: (request: Request, signal: AbortSignal) => Promise<AsyncIterable<Event>>;
  readonly makeAssembler: (onText: TextSink, onProgress?: ChatOptions['onProgress']) => StreamAssembler<Event>;
  /** Sends the request asking for a plain answer: that answer, parsed. */
  readonly sendPlain: (request: Request, signal: AbortSignal | undefined) => Promise<unknown>;
  /** Whether a parsed plain answer has the API's shape. */
  readonly isPlainAnswer: (value: unknown) => boolean;
  /** A plain answer isPlainAnswer accepted, as the result. */
  readonly fromPlain: (answer: unknown) => ChatResult;
  /** The chat endpoint's path below LAL_HOST, for errors. */
  readonly chatPath: string;
  readonly describeFailure: (error: unknown) => Failure;
  /**
   * When `failure` is the server refusing a field this wire adds beyond
   * what every server of its API takes (a cache hint), the field's name;
   * the wire then leaves it out from now on, and the request is sent again
   * without it, once (calls that were under way when the first refusal
   * came are each told so too). Undefined for any other failure.
   */
  readonly refusedField?: (failure: Failure) => string | undefined;
  /** How many tokens the server can read at once, where it says (server-window.ts). */
  readonly window?: () => Promise<number | undefined>;
}

const REFUSING_STATUSES: readonly number[] = harden([400, 404, 415, 501]);

/**
 * The rule for a server that cannot stream and says so: it answers a
 * streamed request with 400, 404, 415 or 501 (bad request, no such route,
 * unsupported media type, not implemented), and its message mentions
 * streaming ("stream" in any case: "streaming is not supported",
 * "unknown field stream_options", ...). A wrong guess costs one plain
 * request, which then fails for the real reason.
 */
export const refusesStreaming = (failure: Failure): failure is Extract<Failure, { kind: 'status' }> =>
  failure.kind === 'status' && REFUSING_STATUSES.includes(failure.status) && /stream/i.test(failure.message);
harden(refusesStreaming);

/** What the caller's onText threw: it reaches the caller as it was, not as an LLM failure. */
class TextSinkError extends Error {
  override name = 'TextSinkError';
  constructor(readonly error: unknown) {
    super('onText threw');
  }
}
harden(TextSinkError);

const guardSink = (onText: TextSink): TextSink =>
  onText &&
  ((delta: string) => {
    try {
      onText(delta);
    } catch (error) {
      throw new TextSinkError(error);
    }
  });

interface Context<Request, Event> {
  readonly wire: ChatWire<Request, Event>;
  readonly config: ProviderConfig;
  readonly transport: Transport;
}

const fail = (
  { config, transport }: { readonly config: ProviderConfig; readonly transport: Transport },
  failure: Failure,
): never => {
  throw makeProviderError(failure, config, transport.redact);
};

const readPlain = <Request, Event>(context: Context<Request, Event>, answer: unknown, onText: TextSink) => {
  const { wire, config } = context;
  if (!wire.isPlainAnswer(answer)) {
    const endpoint = endpointOf(`${config.host.replace(/\/+$/, '')}${wire.chatPath}`);
    fail(context, { kind: 'unexpected', answer: wrongShape(endpoint, answer) });
  }
  const result = wire.fromPlain(answer);
  // The whole text came at once, and onText hears it so.
  if (onText && result.message.content !== '') onText(result.message.content);
  return result;
};

type StreamOutcome = { readonly result: ChatResult } | { readonly failure: Failure };

/** The streamed answer, or the failure that ended it. */
const tryStream = async <Request, Event>(
  { wire, transport }: Context<Request, Event>,
  request: Request,
  { signal, onText, onProgress }: ChatOptions,
): Promise<StreamOutcome> => {
  // Aborted once this call is over: a stream left early (a failure, a
  // throwing onText) has its connection closed, whatever the SDK does.
  const over = new AbortController();
  const assembler = wire.makeAssembler(guardSink(onText), onProgress);
  try {
    const events = await wire.openStream(request, signal ? AbortSignal.any([signal, over.signal]) : over.signal);
    for await (const event of events) assembler.take(event);
    // An abort may end an SDK's stream quietly, as if it were complete.
    signal?.throwIfAborted();
    const result = assembler.finish();
    transport.debug(`streamed ${JSON.stringify(result)}`);
    return { result };
  } catch (error) {
    transport.debug(`error ${String(error)}`);
    // Aborted by the caller: its reason, not an LLM failure.
    signal?.throwIfAborted();
    if (error instanceof TextSinkError) throw error.error;
    // Only a stream event the SDK could not parse throws a SyntaxError here.
    const failure: Failure =
      error instanceof SyntaxError ? { kind: 'garbled', message: error.message } : wire.describeFailure(error);
    return { failure };
  } finally {
    over.abort();
  }
};

const askPlainly = async <Request, Event>(
  context: Context<Request, Event>,
  request: Request,
  { signal, onText }: ChatOptions,
): Promise<StreamOutcome> => {
  const { wire, transport } = context;
  let answer: unknown;
  try {
    answer = await wire.sendPlain(request, signal);
  } catch (error) {
    transport.debug(`error ${String(error)}`);
    signal?.throwIfAborted();
    return { failure: wire.describeFailure(error) };
  }
  transport.debug(`response ${JSON.stringify(answer)}`);
  return { result: readPlain(context, answer, onText) };
};

/**
 * The hints for the messages actually sent: when LAL_MAX_MESSAGES cut
 * them, their stable point is not the caller's any more.
 */
const hintsFor = (sent: readonly ChatMessage[], given: readonly ChatMessage[], cache: CacheHints | undefined) =>
  cache === undefined || sent === given ? cache : harden({ key: cache.key, stableMessages: 0 });

/** The provider an adapter's wire makes: chat() streams, or asks plainly once the server proved it cannot stream. */
export const makeStreamedProvider = <Request, Event>(
  wire: ChatWire<Request, Event>,
  config: ProviderConfig,
  transport: Transport,
): Provider => {
  const context = harden({ wire, config, transport });
  let streams = true;
  /** From now on this provider asks plainly; said once, however many calls find out together. */
  const stopStreaming = (reason: string) => {
    if (!streams) return;
    streams = false;
    transport.log('llm-streaming-unsupported', {
      provider: config.kind,
      host: redactUrl(config.host),
      reason: transport.redact(reason).slice(0, 200),
    });
  };

  /** One request: streamed while the server streams, else plain. */
  const attempt = async (request: Request, options: ChatOptions): Promise<StreamOutcome> => {
    if (streams) {
      const outcome = await tryStream(context, request, options);
      if ('result' in outcome) return outcome;
      const { failure } = outcome;
      if (failure.kind === 'not-streamed') {
        // The plain answer is here already: no need to ask again.
        stopStreaming('it answered a streamed request with a plain answer');
        return { result: readPlain(context, failure.answer, options.onText) };
      }
      if (!refusesStreaming(failure)) return outcome;
      stopStreaming(`it refused a streamed request with HTTP ${failure.status}: ${failure.message}`);
    }
    return askPlainly(context, request, options);
  };

  /** Fields a server refused, each logged once however many calls find out together. */
  const refused = new Set<string>();
  /** A server that refused a field the wire adds is asked again without it (and the wire leaves it out from now on). */
  const leftOut = (failure: Failure) => {
    const field = wire.refusedField?.(failure);
    if (field !== undefined && !refused.has(field)) {
      refused.add(field);
      transport.log('llm-field-refused', { provider: config.kind, host: redactUrl(config.host), field });
    }
    return field !== undefined;
  };

  const chat = async (messages: readonly ChatMessage[], tools: readonly ToolSchema[], options: ChatOptions = {}) => {
    const sent = truncateMessages(messages, config.maxMessages);
    const cache = hintsFor(sent, messages, options.cache);
    const build = () => {
      const request = wire.buildRequest(sent, tools, cache);
      transport.debug(`request ${JSON.stringify(request)}`);
      return request;
    };
    let outcome = await attempt(build(), options);
    if ('failure' in outcome && leftOut(outcome.failure)) outcome = await attempt(build(), options);
    return 'result' in outcome ? outcome.result : fail(context, outcome.failure);
  };

  const { window } = wire;
  return harden({
    kind: config.kind,
    model: config.model,
    chat,
    ...(window === undefined ? {} : { contextWindow: () => window() }),
  });
};
harden(makeStreamedProvider);

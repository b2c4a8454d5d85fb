/**
 * Loopback LLM servers for tests: real HTTP on 127.0.0.1, speaking the real
 * wire protocol of each API, so providers are exercised through the official
 * SDKs. No SDK class is mocked.
 *
 *   kind         chat endpoint             server.url (use as LAL_HOST)
 *   'openai'     POST …/chat/completions    http://127.0.0.1:PORT/v1
 *   'anthropic'  POST …/v1/messages         http://127.0.0.1:PORT/anthropic.com
 *   'ollama'     POST /api/chat             http://127.0.0.1:PORT
 *
 * Each url is chosen so that LAL_HOST=server.url alone selects the right
 * provider (the Anthropic one carries 'anthropic.com' in its path). Also
 * served: GET …/models (openai, anthropic), GET /api/tags, /api/version and /
 * (ollama).
 *
 * A chat request that asks for a stream (`stream: true`; for Ollama, unless
 * `stream: false`) is answered as the real API streams: server-sent events
 * (Anthropic, OpenAI; OpenAI's usage chunk only when the request sets
 * `stream_options.include_usage`) or NDJSON lines (Ollama), text a word at a
 * time and tool-call arguments a few characters at a time. Other requests
 * get the plain JSON answer, and so does every request to a server started
 * with { streams: false }, one that cannot stream.
 *
 * Scripting: each chat request takes the next step from a queue.
 *
 *   server.reply({ text: 'Hello' })                         // assistant text
 *   server.reply({ toolCalls: [{ name: 'greet', arguments: { name: 'Ada' } }] })
 *   server.reply({ text, toolCalls, usage: { inputTokens, outputTokens }, stopReason: 'max_tokens' })
 *   server.fail(429, 'slow down', { 'retry-after': '2' })  // message in the API's error shape
 *   server.fail(500)                                        // default message
 *   server.fail(400, { custom: 'raw JSON body' })           // an object is sent as is
 *   server.respond(request => ({ text: `saw ${request.body.messages.length}` }))  // one step, may be async
 *   server.otherwise({ text: 'always this' })               // when the queue is empty (a step or a function)
 *   server.raw('<html>…</html>')                            // 200 text/html, sent as is
 *   server.raw('{"oops":1}', 'application/json')           // JSON of the wrong shape
 *   server.resetMidBody()                                   // headers, half a reply, then a reset
 *   server.resetBeforeAnswer()                              // a reset before any answer (safe to retry)
 *   server.hold()                                           // no answer at all: the request stays open
 *   server.stallMidBody()                                   // headers, half a reply, then nothing more
 *   server.reply({ text, midway: promise })                 // streamed: half the events, a wait for it, the rest
 *   server.reply({ text, garbled: true })                   // streamed: the event halfway is not JSON
 *   server.reply({ text, trickleMs: 20 })                   // a word every 20 ms (plain: all after as long)
 *
 * The calls chain. With an empty queue and no `otherwise`, a chat request is
 * answered 500 with "no scripted reply", which shows up in the test. A chat
 * request the real API would reject (a tool result answering no call, empty
 * Anthropic text blocks, turns out of order, …) is answered 400 with the
 * reason, without using a step; pass { strict: false } to turn that off.
 *
 * Inspecting: `server.requests` lists every request received (method, path,
 * lowercase headers, parsed JSON body, raw text); `server.chatRequests` only
 * the chat ones; `server.pending` counts unused steps. `server.abandoned`
 * lists the chat requests whose client closed the connection before the
 * answer was complete (a request fae gave up on; one given up before it was
 * even all sent is listed there only, with no body), and
 * `server.whenAbandoned(n)` resolves once there are n of them;
 * `server.whenReceived(n)` resolves once n chat requests have arrived;
 * `server.whenChatsClosed()` once no chat request is open.
 * `server.env(extra)`
 * gives { LAL_HOST, LAL_AUTH_TOKEN: TEST_TOKEN, ...extra } for createProvider.
 * Always `await server.close()` (t.teardown).
 *
 *   const server = await startLlmServer('openai');
 *   t.teardown(() => server.close());
 *   server
 *     .reply({ toolCalls: [{ name: 'greet', arguments: { name: 'Ada' } }] })
 *     .reply({ text: 'Greeted Ada.' });
 *   const provider = createProvider(server.env());
 *   const first = await provider.chat([{ role: 'user', content: 'greet Ada' }], tools);
 *   // … run the tool, append the assistant message and the tool result …
 *   t.deepEqual(server.chatRequests[1].body.messages.at(-1), { role: 'tool', … });
 *
 * `closedLoopbackUrl(kind)` gives a url whose port nothing listens on, for
 * "cannot reach" tests.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  checkChatRequest,
  errorBody,
  failureResponse,
  garbleEvent,
  isFailure,
  isRaw,
  isReset,
  isStall,
  isStreamRequest,
  renderEvent,
  replyBody,
  streamEvents,
  STREAM_CONTENT_TYPES,
  wordCount,
  type Answer,
  type Counter,
  type LlmKind,
  type ScriptedFailure,
  type ScriptedReply,
  type ScriptedReset,
  type ScriptedStall,
  type WireResponse,
  type WireStream,
} from './llm-server-wire.js';

export type { Answer, LlmKind, ScriptedFailure, ScriptedRaw, ScriptedReply, ScriptedToolCall } from './llm-server-wire.js';

/** The token server.env() hands out. */
export const TEST_TOKEN = 'sk-loopback-test-token-0123456789';

export interface RecordedRequest {
  readonly method: string;
  /** Path and query, e.g. '/v1/chat/completions'. */
  readonly path: string;
  /** Lowercase names, as node:http gives them. */
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body, or undefined when there is none or it is not JSON. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests index into wire JSON freely.
  readonly body: any;
  readonly text: string;
  /** True for the kind's chat endpoint. */
  readonly chat: boolean;
}

export type Responder = (request: RecordedRequest) => Answer | Promise<Answer>;
type Step = Answer | Responder;

export interface LlmServer {
  readonly kind: LlmKind;
  /** The exact LAL_HOST value for this server. */
  readonly url: string;
  readonly port: number;
  readonly requests: readonly RecordedRequest[];
  readonly chatRequests: readonly RecordedRequest[];
  /** Scripted steps not used yet. */
  readonly pending: number;
  /** Chat requests whose client closed the connection before the answer was complete. */
  readonly abandoned: readonly RecordedRequest[];
  /** Resolves once `count` chat requests have arrived in all. */
  whenReceived(count: number): Promise<void>;
  /** Resolves once `count` chat requests have been abandoned in all. */
  whenAbandoned(count: number): Promise<void>;
  /**
   * Resolves once no chat request is open: each one the server has begun to
   * read was answered or closed by its client. For a client whose request
   * may be closed before it reaches the server at all (a limit shorter than
   * a loaded machine takes to send it), where whenAbandoned(1) could wait for ever.
   */
  whenChatsClosed(): Promise<void>;
  reply(reply: ScriptedReply): LlmServer;
  fail(status: number, messageOrBody?: string | object, headers?: Readonly<Record<string, string>>): LlmServer;
  respond(responder: Responder): LlmServer;
  raw(body: string, contentType?: string, status?: number): LlmServer;
  resetMidBody(): LlmServer;
  resetBeforeAnswer(): LlmServer;
  /** A step that never answers: the request stays open until the client gives up. */
  hold(): LlmServer;
  /** Headers and half a reply, then nothing more, until the client gives up. */
  stallMidBody(): LlmServer;
  otherwise(step: Step | undefined): LlmServer;
  env(extra?: Readonly<Record<string, string>>): Record<string, string>;
  close(): Promise<void>;
}

export interface LlmServerOptions {
  /** Answer 400 to chat requests the real API would reject (default true). */
  readonly strict?: boolean;
  /** The model named in replies when the request names none. */
  readonly model?: string;
  /** False for a server that cannot stream: every request gets a plain answer (default true). */
  readonly streams?: boolean;
  /**
   * How many tokens the server says it reads at once: in its model list
   * (OpenAI-compatible, as llama.cpp's `meta.n_ctx`) or the model's details
   * (Ollama's /api/show, `<arch>.context_length`).
   */
  readonly window?: number;
  /** It answers as llama.cpp's server: its model list says so, and it sends progress chunks when asked. */
  readonly llamaCpp?: boolean;
}

const CHAT_PATHS: Readonly<Record<LlmKind, (path: string) => boolean>> = {
  openai: path => path.endsWith('/chat/completions'),
  anthropic: path => path.endsWith('/v1/messages'),
  ollama: path => path.endsWith('/api/chat'),
};

const URL_SUFFIX: Readonly<Record<LlmKind, string>> = {
  openai: '/v1',
  anthropic: '/anthropic.com',
  ollama: '',
};

/** The body, or undefined when the client goes away before sending all of it. */
const readBody = (req: IncomingMessage) =>
  new Promise<string | undefined>(resolve => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(undefined));
    req.on('close', () => resolve(req.complete ? Buffer.concat(chunks).toString('utf8') : undefined));
  });

const record = (req: IncomingMessage, text: string, kind: LlmKind): RecordedRequest => {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) {
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
  }
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  const path = req.url ?? '/';
  const method = req.method ?? 'GET';
  return { method, path, headers, body, text, chat: method === 'POST' && CHAT_PATHS[kind](path.split('?')[0]) };
};

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

/**
 * Writes frames one at a time, the n-th word n × everyMs after the start
 * (on a schedule, so the timers' lateness does not add up); stops when the
 * client goes.
 */
const sendPaced = async (res: ServerResponse, frames: readonly string[], { everyMs, words }: NonNullable<WireStream['paced']>) => {
  const start = performance.now();
  let written = 0;
  for (const [i, frame] of frames.entries()) {
    if (words[i]) {
      written += 1;
      // One frame after the other, as a model writes them.
      await sleep(Math.max(0, start + written * everyMs - performance.now()));
    }
    if (res.destroyed) return;
    res.write(frame);
  }
  res.end();
};

/** Writes a stream's frames, with its pause or cut halfway, or paced as a trickling model writes. */
const sendStream = async (res: ServerResponse, { contentType, frames, midway, cut, paced }: WireStream) => {
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache' });
  if (paced !== undefined) {
    await sendPaced(res, frames, paced);
    return;
  }
  const half = Math.floor(frames.length / 2);
  const head = frames.slice(0, half).join('');
  if (cut === 'reset') {
    res.write(head, () => res.socket?.resetAndDestroy());
    return;
  }
  res.write(head);
  if (cut === 'stall') return;
  await midway?.then(
    () => {},
    () => {},
  );
  // The client may have gone meanwhile.
  if (res.destroyed) return;
  res.end(frames.slice(half).join(''));
};

/** A streamed answer to `body`; a scripted stall or reset streams half a reply. */
const streamedAnswer = (
  kind: LlmKind,
  answer: ScriptedReply | ScriptedReset | ScriptedStall,
  body: { stream_options?: { include_usage?: unknown } } | undefined,
  model: string,
  counter: Counter,
): WireResponse => {
  const cut = isStall(answer) ? 'stall' : isReset(answer) ? 'reset' : undefined;
  const reply: ScriptedReply =
    cut === undefined ? (answer as ScriptedReply) : { text: 'this reply stops halfway, never to arrive whole' };
  const includeUsage = body?.stream_options?.include_usage === true;
  const events = streamEvents(kind, reply, model, counter, { includeUsage });
  const half = Math.floor(events.length / 2);
  if (reply.garbled) events[half] = garbleEvent(events[half]);
  const frames = events.map(event => renderEvent(kind, event));
  const paced = reply.trickleMs === undefined ? undefined : { everyMs: reply.trickleMs, words: events.map(event => event.word === true) };
  return {
    status: 200,
    body: '',
    stream: {
      contentType: STREAM_CONTENT_TYPES[kind],
      frames,
      ...(reply.midway ? { midway: reply.midway } : {}),
      ...(cut ? { cut } : {}),
      ...(paced ? { paced } : {}),
    },
  };
};

const send = (res: ServerResponse, response: WireResponse) => {
  if (response.stream) {
    void sendStream(res, response.stream);
    return;
  }
  if (response.resetAfter === -1) {
    res.socket?.resetAndDestroy();
    return;
  }
  const text = typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
  res.writeHead(response.status, {
    'content-type': typeof response.body === 'string' ? 'text/plain' : 'application/json',
    ...(response.resetAfter === undefined && response.stallAfter === undefined
      ? {}
      : { 'content-length': String(Buffer.byteLength(text)) }),
    ...response.headers,
  });
  if (response.stallAfter !== undefined) {
    // Half the promised body, and the rest never comes.
    res.write(text.slice(0, response.stallAfter));
    return;
  }
  if (response.resetAfter !== undefined) {
    // Half the promised body, then the connection is torn down.
    res.write(text.slice(0, response.resetAfter), () => res.socket?.resetAndDestroy());
    return;
  }
  res.end(text);
};

/** Answers to the non-chat endpoints the SDKs or setup code may probe. */
const sideEndpoint = (kind: LlmKind, request: RecordedRequest, model: string, options: LlmServerOptions): WireResponse | undefined => {
  const path = request.path.split('?')[0];
  if (kind === 'ollama' && request.method === 'POST' && path === '/api/show') {
    // As Ollama describes a model: its architecture's keys in model_info.
    return {
      status: 200,
      body: {
        modelfile: '', parameters: '', template: '', details: { family: 'qwen3' },
        model_info: { 'general.architecture': 'qwen3', ...(options.window === undefined ? {} : { 'qwen3.context_length': options.window }) },
      },
    };
  }
  if (request.method !== 'GET') return undefined;
  if (kind === 'ollama') {
    if (path === '/') return { status: 200, body: 'Ollama is running' };
    if (path === '/api/version') return { status: 200, body: { version: '0.6.4' } };
    if (path === '/api/tags') return { status: 200, body: { models: [{ name: model, model }] } };
    return undefined;
  }
  if (path.endsWith('/models')) {
    const entry = options.llamaCpp
      ? { id: model, object: 'model', created: 1_700_000_000, owned_by: 'llamacpp', meta: { n_ctx: options.window, n_ctx_train: 40960 } }
      : { id: model, object: 'model', type: 'model', ...(options.window === undefined ? {} : { max_model_len: options.window }) };
    return { status: 200, body: { object: 'list', data: [entry] } };
  }
  return undefined;
};

/** Promises that resolve once a growing count reaches a number. */
const makeCountWaiters = (count: () => number) => {
  let waiters: { readonly at: number; readonly resolve: () => void }[] = [];
  return {
    /** The count may have grown. */
    notify: () => {
      const now = count();
      for (const waiter of waiters) if (now >= waiter.at) waiter.resolve();
      waiters = waiters.filter(waiter => now < waiter.at);
    },
    when: (at: number) =>
      new Promise<void>(resolve => {
        if (count() >= at) resolve();
        else waiters.push({ at, resolve });
      }),
  };
};

export const startLlmServer = async (kind: LlmKind, options: LlmServerOptions = {}): Promise<LlmServer> => {
  const strict = options.strict ?? true;
  const streams = options.streams ?? true;
  const defaultModel = options.model ?? 'test-model';
  const queue: Step[] = [];
  const requests: RecordedRequest[] = [];
  const abandoned: RecordedRequest[] = [];
  const received = makeCountWaiters(() => requests.filter(r => r.chat).length);
  // Chat requests begun and those since closed (answered or given up on).
  let chatsBegun = 0;
  let chatsEnded = 0;
  const endedCount = makeCountWaiters(() => chatsEnded);
  const abandonedCount = makeCountWaiters(() => abandoned.length);
  let fallback: Step | undefined;
  let count = 0;
  const counter = { next: () => (count += 1) };

  const answerChat = async (request: RecordedRequest): Promise<WireResponse> => {
    const problem = strict ? checkChatRequest(kind, request.body, request.headers) : undefined;
    if (problem !== undefined) {
      return { status: 400, body: errorBody(kind, 400, problem) };
    }
    const step = queue.length > 0 ? queue.shift() : fallback;
    if (step === undefined) {
      return {
        status: 500,
        body: errorBody(kind, 500, `llm-server: no scripted reply for chat request ${requests.filter(r => r.chat).length}`),
      };
    }
    const answer = typeof step === 'function' ? await step(request) : step;
    if (isFailure(answer)) {
      return failureResponse(kind, answer);
    }
    if (isRaw(answer)) {
      return { status: answer.rawStatus ?? 200, body: answer.raw, headers: { 'content-type': answer.contentType ?? 'text/html' } };
    }
    const model = typeof request.body?.model === 'string' ? request.body.model : defaultModel;
    if (isReset(answer) && answer.beforeAnswer === true) {
      return { status: 0, body: '', resetAfter: -1 };
    }
    if (streams && isStreamRequest(kind, request.body)) {
      return streamedAnswer(kind, answer, request.body, model, counter);
    }
    if (isStall(answer)) {
      const body = JSON.stringify(replyBody(kind, { text: 'this reply stops halfway' }, model, counter));
      return { status: 200, body: JSON.parse(body), stallAfter: Math.floor(body.length / 2) };
    }
    if (isReset(answer)) {
      const body = JSON.stringify(replyBody(kind, { text: 'this reply never arrives whole' }, model, counter));
      return { status: 200, body: JSON.parse(body), resetAfter: Math.floor(body.length / 2) };
    }
    // A server that cannot stream answers once it has written every word.
    if (answer.trickleMs !== undefined) await sleep(answer.trickleMs * wordCount(answer));
    return { status: 200, body: replyBody(kind, answer, model, counter) };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    // Filled in once the request is all read.
    const known: { request?: RecordedRequest } = {};
    let cutByServer = false;
    if (record(req, '', kind).chat) {
      chatsBegun += 1;
      res.on('close', () => {
        // Closed before the answer was all sent (or even before the
        // request was: then only its method, path and headers are known),
        // and not by a scripted reset.
        if (!res.writableFinished && !cutByServer) {
          abandoned.push(known.request ?? harden(record(req, '', kind)));
          abandonedCount.notify();
        }
        chatsEnded += 1;
        endedCount.notify();
      });
    }
    const text = await readBody(req);
    if (text === undefined) return;
    const request = harden(record(req, text, kind));
    known.request = request;
    requests.push(request);
    if (!request.chat) {
      send(res, sideEndpoint(kind, request, defaultModel, options) ?? { status: 404, body: errorBody(kind, 404, `no route for ${request.method} ${request.path}`) });
      return;
    }
    received.notify();
    const response = await answerChat(request);
    cutByServer = response.resetAfter !== undefined || response.stream?.cut === 'reset';
    send(res, response);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(error => {
      send(res, { status: 500, body: errorBody(kind, 500, `llm-server: responder threw: ${String(error)}`) });
    });
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}${URL_SUFFIX[kind]}`;

  const self: LlmServer = {
    kind,
    url,
    port,
    get requests() {
      return [...requests];
    },
    get chatRequests() {
      return requests.filter(r => r.chat);
    },
    get pending() {
      return queue.length;
    },
    get abandoned() {
      return [...abandoned];
    },
    whenReceived: count => received.when(count),
    whenAbandoned: count => abandonedCount.when(count),
    whenChatsClosed: () => endedCount.when(chatsBegun),
    reply(reply) {
      queue.push(reply);
      return self;
    },
    fail(status, messageOrBody, headers) {
      const failure: ScriptedFailure =
        typeof messageOrBody === 'string' || messageOrBody === undefined
          ? { status, message: messageOrBody, headers }
          : { status, body: messageOrBody, headers };
      queue.push(failure);
      return self;
    },
    respond(responder) {
      queue.push(responder);
      return self;
    },
    raw(body, contentType, status) {
      queue.push({ raw: body, ...(contentType === undefined ? {} : { contentType }), ...(status === undefined ? {} : { rawStatus: status }) });
      return self;
    },
    resetMidBody() {
      queue.push({ resetMidBody: true });
      return self;
    },
    resetBeforeAnswer() {
      queue.push({ resetMidBody: true, beforeAnswer: true });
      return self;
    },
    hold() {
      queue.push(() => new Promise<Answer>(() => {}));
      return self;
    },
    stallMidBody() {
      queue.push({ stallMidBody: true });
      return self;
    },
    otherwise(step) {
      fallback = step;
      return self;
    },
    env(extra = {}) {
      return { LAL_HOST: url, LAL_AUTH_TOKEN: TEST_TOKEN, ...extra };
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) => server.close(error => (error ? reject(error) : resolve())));
    },
  };
  return self;
};

/** A url of the given kind's shape on a loopback port that nothing listens on. */
export const closedLoopbackUrl = async (kind: LlmKind): Promise<string> => {
  const server = await startLlmServer(kind);
  const { url } = server;
  await server.close();
  return url;
};

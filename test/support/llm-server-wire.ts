// The wire formats of the three APIs, for the loopback LLM servers: building
// reply and error bodies, and checking request bodies the way the real
// servers do. See llm-server.ts for the scripting API.

export type LlmKind = 'openai' | 'anthropic' | 'ollama';

export interface ScriptedToolCall {
  /** Defaults to a fresh id in the API's own style (none for Ollama). */
  readonly id?: string;
  readonly name: string;
  /**
   * An object, or a JSON text. A text is sent as is where the API carries
   * text (OpenAI), so invalid JSON can be scripted; parsed where it carries
   * objects (Anthropic, Ollama).
   */
  readonly arguments?: Readonly<Record<string, unknown>> | string;
}

export interface ScriptedReply {
  readonly text?: string;
  readonly toolCalls?: readonly ScriptedToolCall[];
  /**
   * Token counts to report; defaults to 10 in, 5 out; null reports none.
   * inputTokens is every input token; of them, cachedInputTokens were read
   * from the prompt cache and cacheWriteInputTokens written to it, each
   * reported (where the API reports it) only when given.
   */
  readonly usage?: ScriptedUsage | null;
  /** 'max_tokens' scripts a reply cut off by the length limit. */
  readonly stopReason?: 'end_turn' | 'tool_use' | 'max_tokens';
  /**
   * Streamed replies only: the first half of the events, then a wait for
   * this, then the rest. One that never settles leaves the stream open and
   * silent until the client gives up.
   */
  readonly midway?: Promise<unknown>;
  /** Streamed replies only: the event halfway is cut short, so it is not JSON. */
  readonly garbled?: boolean;
  /**
   * As a model that writes a word every this many ms: streamed, each event
   * that carries a word of the text comes this long after the event before
   * it; plain, the whole answer comes after as long as its words would take
   * (a server that answers only once it has written everything).
   */
  readonly trickleMs?: number;
  /**
   * llama.cpp's server, asked for it (return_progress): how far it has read
   * the prompt, in tokens, before the answer begins; the last is the whole
   * prompt. Each goes out as llama.cpp's progress chunk.
   */
  readonly progress?: readonly number[];
}

export interface ScriptedUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens?: number;
  readonly cacheWriteInputTokens?: number;
}

/**
 * Anthropic's usage as the API sends it: input_tokens counts only what
 * came after the last cache breakpoint; the cache counts, and what the
 * cache write was made of, beside it.
 */
const anthropicUsage = (usage: ScriptedUsage, outputTokens: number) => {
  const read = usage.cachedInputTokens;
  const written = usage.cacheWriteInputTokens;
  if (read === undefined && written === undefined) return { input_tokens: usage.inputTokens, output_tokens: outputTokens };
  return {
    input_tokens: usage.inputTokens - (read ?? 0) - (written ?? 0),
    cache_creation_input_tokens: written ?? 0,
    cache_read_input_tokens: read ?? 0,
    cache_creation: { ephemeral_5m_input_tokens: written ?? 0, ephemeral_1h_input_tokens: 0 },
    output_tokens: outputTokens,
    service_tier: 'standard',
  };
};

/** OpenAI's usage as the API sends it: prompt_tokens counts the cached ones too. */
const openAIUsage = (usage: ScriptedUsage) => ({
  prompt_tokens: usage.inputTokens,
  completion_tokens: usage.outputTokens,
  total_tokens: usage.inputTokens + usage.outputTokens,
  ...(usage.cachedInputTokens === undefined
    ? {}
    : {
        prompt_tokens_details: { cached_tokens: usage.cachedInputTokens, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      }),
});

export interface ScriptedFailure {
  readonly status: number;
  /** A message, wrapped in the API's own error shape. */
  readonly message?: string;
  /** A raw JSON body, sent as is (overrides message). */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * A body sent exactly as given, whatever the API's shape: an HTML page, a
 * JSON body of the wrong shape, nothing at all.
 */
export interface ScriptedRaw {
  readonly raw: string;
  /** Default text/html. */
  readonly contentType?: string;
  /** Default 200. */
  readonly rawStatus?: number;
}

/** Headers and the start of a valid reply, then the connection is reset. */
export interface ScriptedReset {
  readonly resetMidBody: true;
  /** Reset before sending anything at all, as a server closing a kept-alive socket does. */
  readonly beforeAnswer?: boolean;
}

/** Headers and the start of a valid reply, then nothing more: the connection stays open. */
export interface ScriptedStall {
  readonly stallMidBody: true;
}

/** What a responder returns: a reply, a failure (it has a status), a raw body, a reset or a stall. */
export type Answer = ScriptedReply | ScriptedFailure | ScriptedRaw | ScriptedReset | ScriptedStall;

export const isFailure = (answer: Answer): answer is ScriptedFailure =>
  typeof (answer as ScriptedFailure).status === 'number';

export const isRaw = (answer: Answer): answer is ScriptedRaw =>
  typeof (answer as ScriptedRaw).raw === 'string';

export const isReset = (answer: Answer): answer is ScriptedReset =>
  (answer as ScriptedReset).resetMidBody === true;

export const isStall = (answer: Answer): answer is ScriptedStall =>
  (answer as ScriptedStall).stallMidBody === true;

export interface WireResponse {
  readonly status: number;
  /** A string is sent as is (text/plain unless headers say otherwise); anything else as JSON. */
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** Send the headers and this much of the body, then reset the connection (-1: reset at once). */
  readonly resetAfter?: number;
  /** Send the headers and this much of the body, then nothing more. */
  readonly stallAfter?: number;
  /** A streamed answer instead of `body`. */
  readonly stream?: WireStream;
}

export interface WireStream {
  readonly contentType: string;
  /** The events, rendered. */
  readonly frames: readonly string[];
  /** A pause of `everyMs` before each frame that carries a word (`words[i]` for frames[i]). */
  readonly paced?: { readonly everyMs: number; readonly words: readonly boolean[] };
  /** Sent halfway: a wait for this promise before the rest. */
  readonly midway?: Promise<unknown>;
  /** Halfway, the connection is reset, or left open with nothing more sent. */
  readonly cut?: 'reset' | 'stall';
}

type Json = Record<string, unknown>;

const ANTHROPIC_ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

const OPENAI_ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'invalid_request_error',
  404: 'invalid_request_error',
  429: 'rate_limit_error',
  500: 'server_error',
};

/** An error body in the shape the API itself uses. */
export const errorBody = (kind: LlmKind, status: number, message: string): unknown => {
  switch (kind) {
    case 'anthropic':
      return {
        type: 'error',
        error: { type: ANTHROPIC_ERROR_TYPES[status] ?? 'api_error', message },
      };
    case 'openai':
      return {
        error: { message, type: OPENAI_ERROR_TYPES[status] ?? 'server_error', param: null, code: null },
      };
    default:
      return { error: message };
  }
};

export const failureResponse = (kind: LlmKind, failure: ScriptedFailure): WireResponse => ({
  status: failure.status,
  body:
    failure.body !== undefined
      ? failure.body
      : errorBody(kind, failure.status, failure.message ?? `scripted failure (HTTP ${failure.status})`),
  ...(failure.headers ? { headers: failure.headers } : {}),
});

const argumentsObject = (args: ScriptedToolCall['arguments']): Json => {
  if (typeof args !== 'string') {
    return { ...(args ?? {}) };
  }
  try {
    const value: unknown = JSON.parse(args);
    return typeof value === 'object' && value !== null ? (value as Json) : {};
  } catch {
    return {};
  }
};

const argumentsText = (args: ScriptedToolCall['arguments']): string =>
  typeof args === 'string' ? args : JSON.stringify(args ?? {});

/** Hands out ids and numbers, so each server's replies are distinct. */
export interface Counter {
  next(): number;
}

/** A successful reply body for the API of `kind`. */
export const replyBody = (kind: LlmKind, reply: ScriptedReply, model: string, counter: Counter): unknown => {
  const calls = reply.toolCalls ?? [];
  const usage = reply.usage === undefined ? { inputTokens: 10, outputTokens: 5 } : reply.usage;
  const stop = reply.stopReason ?? (calls.length > 0 ? 'tool_use' : 'end_turn');
  const n = counter.next();
  switch (kind) {
    case 'openai':
      return {
        id: `chatcmpl-${n}`,
        object: 'chat.completion',
        created: 1_700_000_000 + n,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: reply.text ?? (calls.length > 0 ? null : ''),
              refusal: null,
              ...(calls.length > 0
                ? {
                    tool_calls: calls.map(call => ({
                      id: call.id ?? `call_${counter.next()}`,
                      type: 'function',
                      function: { name: call.name, arguments: argumentsText(call.arguments) },
                    })),
                  }
                : {}),
            },
            finish_reason: { end_turn: 'stop', tool_use: 'tool_calls', max_tokens: 'length' }[stop],
            logprobs: null,
          },
        ],
        ...(usage ? { usage: openAIUsage(usage) } : {}),
      };
    case 'anthropic':
      return {
        id: `msg_${n}`,
        type: 'message',
        role: 'assistant',
        model,
        content: [
          ...(reply.text ? [{ type: 'text', text: reply.text }] : []),
          ...calls.map(call => ({
            type: 'tool_use',
            id: call.id ?? `toolu_${counter.next()}`,
            name: call.name,
            input: argumentsObject(call.arguments),
          })),
        ],
        stop_reason: stop,
        stop_sequence: null,
        ...(usage ? { usage: anthropicUsage(usage, usage.outputTokens) } : {}),
      };
    default:
      return {
        model,
        created_at: new Date(Date.UTC(2025, 0, 1, 0, 0, n)).toISOString(),
        message: {
          role: 'assistant',
          content: reply.text ?? '',
          ...(calls.length > 0
            ? {
                tool_calls: calls.map(call => ({
                  ...(call.id ? { id: call.id } : {}),
                  function: { name: call.name, arguments: argumentsObject(call.arguments) },
                })),
              }
            : {}),
        },
        done: true,
        done_reason: stop === 'max_tokens' ? 'length' : 'stop',
        total_duration: 1000,
        ...(usage ? { prompt_eval_count: usage.inputTokens, eval_count: usage.outputTokens } : {}),
      };
  }
};

// Streamed replies, as each API sends them: server-sent events for
// Anthropic and OpenAI, NDJSON lines for Ollama. Text comes a word at a
// time and tool-call arguments three characters at a time (so a piece may
// split a character's surrogate pair), so assembling them is exercised.

/** Is this chat request asking for a stream? Ollama streams unless told not to. */
export const isStreamRequest = (kind: LlmKind, body: unknown): boolean => {
  const stream = isObject(body) ? body.stream : undefined;
  return kind === 'ollama' ? stream !== false : stream === true;
};

export const STREAM_CONTENT_TYPES: Readonly<Record<LlmKind, string>> = {
  anthropic: 'text/event-stream; charset=utf-8',
  openai: 'text/event-stream; charset=utf-8',
  ollama: 'application/x-ndjson',
};

/** One event: an SSE event (named, for Anthropic) or an NDJSON line. */
export interface StreamEvent {
  readonly event?: string;
  readonly data: string;
  /** It carries a word of the text (what a trickling model paces). */
  readonly word?: boolean;
}

/** The event as it goes on the wire. */
export const renderEvent = (kind: LlmKind, { event, data }: StreamEvent): string => {
  if (kind === 'ollama') return `${data}\n`;
  return `${event === undefined ? '' : `event: ${event}\n`}data: ${data}\n\n`;
};

/** The same event cut short in the middle of its JSON. */
export const garbleEvent = (event: StreamEvent): StreamEvent => ({
  ...event,
  data: event.data.slice(0, Math.floor(event.data.length / 2)),
});

/** Words with the spaces before them; joined, the text again. */
const wordsOf = (text: string | undefined): string[] => (text ?? '').match(/\s*\S+|\s+$/g) ?? [];

/** How many words a reply's text is streamed in. */
export const wordCount = (reply: ScriptedReply): number => wordsOf(reply.text).length;

const piecesOf = (text: string, size = 3): string[] => {
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
  return pieces;
};

const json = (value: unknown): StreamEvent => ({ data: JSON.stringify(value) });
const named = (type: string, value: Json): StreamEvent => ({ event: type, data: JSON.stringify({ type, ...value }) });

const anthropicEvents = (reply: ScriptedReply, model: string, n: number, counter: Counter): StreamEvent[] => {
  const usage = reply.usage === undefined ? { inputTokens: 10, outputTokens: 5 } : reply.usage;
  const calls = reply.toolCalls ?? [];
  const stop = reply.stopReason ?? (calls.length > 0 ? 'tool_use' : 'end_turn');
  const events = [
    named('message_start', {
      message: {
        id: `msg_${n}`, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null,
        ...(usage ? { usage: anthropicUsage(usage, 1) } : {}),
      },
    }),
  ];
  const words = wordsOf(reply.text);
  if (words.length > 0) {
    events.push(named('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }), named('ping', {}));
    for (const text of words) events.push({ ...named('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }), word: true });
    events.push(named('content_block_stop', { index: 0 }));
  }
  for (const [i, call] of calls.entries()) {
    const index = i + (words.length > 0 ? 1 : 0);
    const id = call.id ?? `toolu_${counter.next()}`;
    events.push(named('content_block_start', { index, content_block: { type: 'tool_use', id, name: call.name, input: {} } }));
    for (const partial_json of ['', ...piecesOf(JSON.stringify(argumentsObject(call.arguments)))]) {
      events.push(named('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } }));
    }
    events.push(named('content_block_stop', { index }));
  }
  // With cache counts, message_delta repeats every count, cumulative, as the API does now; without, only output_tokens, as it used to.
  const cached = usage && (usage.cachedInputTokens !== undefined || usage.cacheWriteInputTokens !== undefined);
  const { cache_creation: _, service_tier: __, ...deltaUsage } = usage ? anthropicUsage(usage, usage.outputTokens) : {};
  events.push(
    named('message_delta', {
      delta: { stop_reason: stop, stop_sequence: null },
      ...(usage ? { usage: cached ? deltaUsage : { output_tokens: usage.outputTokens } } : {}),
    }),
    named('message_stop', {}),
  );
  return events;
};

const openAIEvents = (
  reply: ScriptedReply,
  model: string,
  n: number,
  counter: Counter,
  includeUsage: boolean,
): StreamEvent[] => {
  const usage = reply.usage === undefined ? { inputTokens: 10, outputTokens: 5 } : reply.usage;
  const calls = reply.toolCalls ?? [];
  const stop = reply.stopReason ?? (calls.length > 0 ? 'tool_use' : 'end_turn');
  const chunk = (delta: Json, finish: string | null = null) =>
    json({
      id: `chatcmpl-${n}`, object: 'chat.completion.chunk', created: 1_700_000_000 + n, model,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
      // As OpenAI does when usage is asked for: null until the last chunk.
      ...(includeUsage ? { usage: null } : {}),
    });
  const total = reply.progress?.at(-1) ?? 0;
  // As llama.cpp sends them: the role delta, and the prompt's progress.
  const events: StreamEvent[] = (reply.progress ?? []).map(processed =>
    json({
      id: `chatcmpl-${n}`, object: 'chat.completion.chunk', created: 1_700_000_000 + n, model,
      choices: [{ finish_reason: null, index: 0, delta: { role: 'assistant', content: null } }],
      prompt_progress: { total, cache: 0, processed, time_ms: processed },
    }),
  );
  events.push(chunk({ role: 'assistant', content: '' }));
  for (const content of wordsOf(reply.text)) events.push({ ...chunk({ content }), word: true });
  for (const [index, call] of calls.entries()) {
    const id = call.id ?? `call_${counter.next()}`;
    events.push(chunk({ tool_calls: [{ index, id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of piecesOf(argumentsText(call.arguments))) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  }
  events.push(chunk({}, { end_turn: 'stop', tool_use: 'tool_calls', max_tokens: 'length' }[stop]));
  if (includeUsage && usage) {
    events.push(
      json({
        id: `chatcmpl-${n}`, object: 'chat.completion.chunk', created: 1_700_000_000 + n, model, choices: [],
        usage: openAIUsage(usage),
      }),
    );
  }
  events.push({ data: '[DONE]' });
  return events;
};

const ollamaEvents = (reply: ScriptedReply, model: string, n: number): StreamEvent[] => {
  const usage = reply.usage === undefined ? { inputTokens: 10, outputTokens: 5 } : reply.usage;
  const stop = reply.stopReason === 'max_tokens' ? 'length' : 'stop';
  const created_at = new Date(Date.UTC(2025, 0, 1, 0, 0, n)).toISOString();
  const line = (message: Json, extra: Json = { done: false }) =>
    json({ model, created_at, message: { role: 'assistant', content: '', ...message }, ...extra });
  return [
    ...wordsOf(reply.text).map(content => ({ ...line({ content }), word: true })),
    // Ollama sends each tool call whole.
    ...(reply.toolCalls ?? []).map(call =>
      line({
        tool_calls: [{ ...(call.id ? { id: call.id } : {}), function: { name: call.name, arguments: argumentsObject(call.arguments) } }],
      }),
    ),
    line({}, {
      done: true, done_reason: stop, total_duration: 1000,
      ...(usage ? { prompt_eval_count: usage.inputTokens, eval_count: usage.outputTokens } : {}),
    }),
  ];
};

/** The events of a streamed reply for the API of `kind`, in order. */
export const streamEvents = (
  kind: LlmKind,
  reply: ScriptedReply,
  model: string,
  counter: Counter,
  { includeUsage = false } = {},
): StreamEvent[] => {
  const n = counter.next();
  switch (kind) {
    case 'anthropic':
      return anthropicEvents(reply, model, n, counter);
    case 'openai':
      return openAIEvents(reply, model, n, counter, includeUsage);
    default:
      return ollamaEvents(reply, model, n);
  }
};

// Request checks. Each returns the first problem, or undefined. They follow
// what the real APIs reject, and for Anthropic are a little stricter (turns
// must alternate), because our adapter promises that shape.

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const checkOpenAI = (body: Json): string | undefined => {
  if (typeof body.model !== 'string' || body.model === '') return 'model: a non-empty string is required';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: a non-empty array is required';
  const messages = body.messages as Json[];
  let open: Set<string> | undefined;
  for (const [i, m] of messages.entries()) {
    if (!isObject(m)) return `messages[${i}]: must be an object`;
    if (m.role === 'tool') {
      if (!open) return `messages[${i}]: messages with role 'tool' must be a response to a preceding message with 'tool_calls'`;
      if (typeof m.tool_call_id !== 'string' || !open.has(m.tool_call_id))
        return `messages[${i}]: tool_call_id ${JSON.stringify(m.tool_call_id)} answers no pending tool call`;
      if (typeof m.content !== 'string') return `messages[${i}]: content must be a string`;
      open.delete(m.tool_call_id);
      continue;
    }
    if (open && open.size > 0)
      return `messages[${i}]: an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id' (missing ${[...open].join(', ')})`;
    open = undefined;
    if (!['system', 'user', 'assistant', 'developer'].includes(m.role as string)) return `messages[${i}]: unknown role ${JSON.stringify(m.role)}`;
    if (m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
      open = new Set();
      for (const call of m.tool_calls as Json[]) {
        const fn = call.function as Json | undefined;
        if (call.type !== 'function' || !isObject(fn) || typeof fn.name !== 'string' || typeof fn.arguments !== 'string' || typeof call.id !== 'string')
          return `messages[${i}].tool_calls: each needs id, type 'function', function.name and function.arguments (a string)`;
        open.add(call.id);
      }
      if (m.content !== null && typeof m.content !== 'string') return `messages[${i}]: content must be a string or null`;
    } else if (typeof m.content !== 'string') {
      return `messages[${i}]: content must be a string`;
    }
  }
  if (open && open.size > 0) return `messages: tool calls left unanswered (${[...open].join(', ')})`;
  return undefined;
};

const blocksOf = (content: unknown): Json[] | undefined => {
  if (typeof content === 'string') return content === '' ? undefined : [{ type: 'text', text: content }];
  return Array.isArray(content) && content.length > 0 ? (content as Json[]) : undefined;
};

const checkAnthropic = (body: Json, headers: Readonly<Record<string, string>>): string | undefined => {
  if (!headers['anthropic-version']) return 'anthropic-version: header is required';
  if (!headers['x-api-key'] && !headers.authorization) return 'authentication: x-api-key or authorization header is required';
  if (typeof body.model !== 'string' || body.model === '') return 'model: a non-empty string is required';
  if (!Number.isSafeInteger(body.max_tokens) || (body.max_tokens as number) < 1) return 'max_tokens: a positive integer is required';
  if (body.system !== undefined && typeof body.system !== 'string' && !Array.isArray(body.system)) return 'system: must be a string or a list of blocks';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: a non-empty array is required';
  const messages = body.messages as Json[];
  let pending: Set<string> = new Set();
  for (const [i, m] of messages.entries()) {
    const expected = i % 2 === 0 ? 'user' : 'assistant';
    if (m.role !== expected) return `messages[${i}]: roles must alternate starting with user; got ${JSON.stringify(m.role)}`;
    const blocks = blocksOf(m.content);
    if (!blocks) return `messages[${i}]: content must be a non-empty string or a non-empty list of blocks`;
    const answered = new Set<string>();
    const uses = new Set<string>();
    for (const [j, block] of blocks.entries()) {
      const at = `messages[${i}].content[${j}]`;
      switch (block.type) {
        case 'text':
          if (typeof block.text !== 'string' || block.text === '') return `${at}: text content blocks must be non-empty`;
          break;
        case 'tool_use':
          if (m.role !== 'assistant') return `${at}: tool_use is only allowed in assistant messages`;
          if (typeof block.id !== 'string' || typeof block.name !== 'string' || !isObject(block.input))
            return `${at}: tool_use needs id, name and an object input`;
          uses.add(block.id);
          break;
        case 'tool_result':
          if (m.role !== 'user') return `${at}: tool_result is only allowed in user messages`;
          if (typeof block.tool_use_id !== 'string' || !pending.has(block.tool_use_id))
            return `${at}: unexpected tool_use_id ${JSON.stringify(block.tool_use_id)}: tool_result blocks must answer a tool_use in the previous message`;
          answered.add(block.tool_use_id);
          break;
        default:
          return `${at}: unknown block type ${JSON.stringify(block.type)}`;
      }
    }
    if (m.role === 'user') {
      const missing = [...pending].filter(id => !answered.has(id));
      if (missing.length > 0) return `messages[${i}]: tool_use ids were found without tool_result blocks immediately after: ${missing.join(', ')}`;
    }
    pending = uses;
  }
  if (Array.isArray(body.tools)) {
    for (const [i, tool] of (body.tools as Json[]).entries()) {
      if (typeof tool.name !== 'string' || !isObject(tool.input_schema)) return `tools[${i}]: needs name and input_schema`;
    }
  }
  return checkCacheControl(body);
};

/** Anthropic's rules for cache breakpoints: at most four, each of type ephemeral. */
const checkCacheControl = (body: Json): string | undefined => {
  const marked: unknown[] = [];
  const look = (items: unknown) => {
    if (!Array.isArray(items)) return;
    for (const item of items as Json[]) if (isObject(item) && item.cache_control !== undefined) marked.push(item.cache_control);
  };
  look(body.tools);
  look(body.system);
  for (const message of body.messages as Json[]) look(message.content);
  if (marked.length > 4) return `A maximum of 4 blocks with cache_control may be provided. Found ${marked.length}.`;
  if (marked.some(mark => !isObject(mark) || mark.type !== 'ephemeral')) return 'cache_control: type must be "ephemeral"';
  return undefined;
};

const checkOllama = (body: Json): string | undefined => {
  if (typeof body.model !== 'string' || body.model === '') return 'model is required';
  if (!Array.isArray(body.messages)) return 'messages must be an array';
  for (const [i, m] of (body.messages as Json[]).entries()) {
    if (typeof m.role !== 'string' || typeof m.content !== 'string') return `messages[${i}]: role and content (strings) are required`;
    for (const call of (m.tool_calls ?? []) as Json[]) {
      const fn = call.function as Json | undefined;
      if (!isObject(fn) || typeof fn.name !== 'string' || !isObject(fn.arguments))
        return `messages[${i}].tool_calls: function.name and function.arguments (an object) are required`;
    }
  }
  return undefined;
};

/** The problem a real server would answer 400 for, if any. */
export const checkChatRequest = (
  kind: LlmKind,
  body: unknown,
  headers: Readonly<Record<string, string>>,
): string | undefined => {
  if (!isObject(body)) return 'the body must be a JSON object';
  switch (kind) {
    case 'openai':
      return checkOpenAI(body);
    case 'anthropic':
      return checkAnthropic(body, headers);
    default:
      return checkOllama(body);
  }
};

// The Ollama /api/chat adapter, through the ollama client. Fixes upstream
// defects L3 (stored arguments parsed with a bare JSON.parse) and L5 (tool
// results sent with no tool name, so several results in one turn could not
// be told apart). Answers are streamed (NDJSON), plain when the server
// cannot.
import { randomUUID } from 'node:crypto';
import {
  Ollama,
  type ChatRequest,
  type ChatResponse,
  type Message,
  type Tool,
  type ToolCall,
} from 'ollama';
import { readProviderConfig, type Env, type ProviderConfig } from './config.js';
import { describeTransportFailure, IncompleteStreamError, type Failure } from './errors.js';
import { makeChatResult, makeToolCall, makeUsage, mapStopReason, parseToolArguments } from './assistant-result.js';
import { makeTextParts, type TextSink } from './answer-builder.js';
import { makeTransport, type ProviderOptions } from './transport.js';
import { isOllamaReply } from './answer-check.js';
import { makeStreamedProvider, type StreamAssembler } from './streamed-chat.js';
import { askOnce, readOllamaShow } from './server-window.js';
import type { ChatMessage, ChatResult, Fetch, Provider, StopReason, ToolSchema } from './types.js';

/** An HTTP error status, raised before the ollama client sees the response. */
class OllamaStatusError extends Error {
  override name = 'OllamaStatusError';
  constructor(
    readonly status: number,
    readonly serverMessage: string,
  ) {
    super(`HTTP ${status}: ${serverMessage}`);
  }
}
harden(OllamaStatusError);

/**
 * The NDJSON body with every line checked on its way to the ollama client,
 * which skips a line that is not JSON (printing it to the console) and
 * would take a garbled answer for a shorter one: such a line errors the
 * body with the parser's SyntaxError, and a body that ends without a last
 * line (`done`, or an `error` the client reports) errors with an
 * IncompleteStreamError.
 */
const checkLines = (body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> => {
  const decoder = new TextDecoder();
  let partial = '';
  let ended = false;
  const check = (line: string) => {
    if (line.trim() === '') return;
    const value = JSON.parse(line) as { done?: unknown; error?: unknown } | null;
    ended ||= value?.done === true || value?.error !== undefined;
  };
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const lines = (partial + decoder.decode(chunk, { stream: true })).split('\n');
        partial = lines.pop() ?? '';
        lines.forEach(check);
        controller.enqueue(chunk);
      },
      flush() {
        check(partial + decoder.decode());
        if (!ended) throw new IncompleteStreamError();
      },
    }),
  );
};

/**
 * Failed responses are read here, because the ollama client prints to the
 * console when an error body is not JSON, and we never log. A streamed
 * answer (`streamed`: the fetch under it let only a stream through) has
 * its lines checked.
 */
const makeOllamaFetch =
  (inner: Fetch, streamed: boolean): Fetch =>
  async (input, init) => {
    const response = await inner(input, init);
    if (response.ok) {
      const { body, status, statusText, headers } = response;
      return streamed && body ? new Response(checkLines(body), { status, statusText, headers }) : response;
    }
    const text = await response.text().catch(() => '');
    let message = text;
    try {
      const said = (JSON.parse(text) as { error?: unknown } | null)?.error;
      if (typeof said === 'string') {
        message = said;
      }
    } catch {
      // Not JSON: keep the text.
    }
    throw new OllamaStatusError(response.status, message);
  };

/** `fetch` with `signal` joined to each request's own. */
const withSignal = (fetch: Fetch, signal: AbortSignal | undefined): Fetch =>
  signal === undefined
    ? fetch
    : (input, init) =>
        fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal });

export const toOllamaMessages = (messages: readonly ChatMessage[]): Message[] => {
  // Which tool each call id went to, so a result can carry its tool's name.
  const toolNames = new Map<string, string>();
  return messages.map((message): Message => {
    switch (message.role) {
      case 'assistant': {
        const calls = message.tool_calls ?? [];
        for (const call of calls) {
          toolNames.set(call.id, call.function.name);
        }
        return {
          role: 'assistant',
          content: message.content,
          ...(calls.length > 0
            ? {
                tool_calls: calls.map(call => ({
                  function: {
                    name: call.function.name,
                    arguments: parseToolArguments(call.function.arguments),
                  },
                })),
              }
            : {}),
        };
      }
      case 'tool': {
        const name =
          message.name ??
          (message.tool_call_id === undefined ? undefined : toolNames.get(message.tool_call_id));
        return { role: 'tool', content: message.content, ...(name ? { tool_name: name } : {}) };
      }
      default:
        return { role: message.role, content: message.content };
    }
  });
};
harden(toOllamaMessages);

export const toOllamaTools = (tools: readonly ToolSchema[]): Tool[] =>
  tools.map(({ function: f }) => ({
    type: 'function',
    function: {
      name: f.name,
      description: f.description,
      parameters: { ...f.parameters } as Tool['function']['parameters'],
    },
  }));
harden(toOllamaTools);

const STOP_REASONS: Record<string, StopReason> = harden({
  stop: 'end_turn',
  length: 'max_tokens',
});

/**
 * Ollama gives tool calls no ids (newer servers may; those are kept), so
 * each call gets one that is unique across turns and restarts.
 */
export const fromOllamaResponse = (
  response: ChatResponse,
  makeId: () => string = () => `ollama_call_${randomUUID()}`,
): ChatResult => {
  const calls = response.message?.tool_calls ?? [];
  const toolCalls = calls.map(call => {
    const given = (call as { id?: unknown }).id;
    const id = typeof given === 'string' && given !== '' ? given : makeId();
    return makeToolCall(id, call.function.name, call.function.arguments);
  });
  const stopReason = mapStopReason(STOP_REASONS, response.done_reason);
  return makeChatResult({
    content: response.message?.content,
    toolCalls,
    // Ollama reports no cached tokens: its KV cache reuse is not counted apart.
    usage: makeUsage({ input: response.prompt_eval_count, output: response.eval_count }),
    stopReason: stopReason !== undefined && toolCalls.length > 0 ? 'tool_use' : stopReason,
  });
};
harden(fromOllamaResponse);

/**
 * Assembles a streamed Ollama reply: content pieces in order (each handed
 * to onText), tool calls as they come (Ollama sends each one whole, its
 * arguments an object), and the stop reason and counts of the last chunk,
 * `done: true`, which makes it complete.
 */
export const makeOllamaAssembler = (onText: TextSink): StreamAssembler<ChatResponse> => {
  const text = makeTextParts(onText);
  const calls: ToolCall[] = [];
  let last: ChatResponse | undefined;
  const take = (chunk: ChatResponse) => {
    text.add(chunk.message?.content);
    calls.push(...(chunk.message?.tool_calls ?? []));
    if (chunk.done) last = chunk;
  };
  const finish = () => {
    if (last === undefined) throw new IncompleteStreamError();
    const message = { role: 'assistant', content: text.text(), tool_calls: calls };
    return fromOllamaResponse({ ...last, message });
  };
  return harden({ take, finish });
};
harden(makeOllamaAssembler);

const describeFailure = (error: unknown): Failure => {
  if (error instanceof OllamaStatusError) {
    return { kind: 'status', status: error.status, message: error.serverMessage };
  }
  return (
    describeTransportFailure(error) ?? {
      kind: 'other',
      message: error instanceof Error ? error.message : String(error),
    }
  );
};

type OllamaRequest = Omit<ChatRequest, 'stream'>;

/** The adapter for a parsed configuration; `env` feeds only the redactor. */
export const makeOllamaProviderFromConfig = (
  config: ProviderConfig,
  env: Env,
  options: ProviderOptions = {},
): Provider => {
  const transport = makeTransport(config, env, options, isOllamaReply);
  /**
   * The ollama client gives a request that is not streamed no signal, and
   * its abort() ends all of its streamed requests at once; so each call
   * gets a client of its own (a cheap object), whose fetch carries the
   * call's signal.
   */
  const clientFor = (fetch: Fetch, streamed: boolean, signal: AbortSignal | undefined) =>
    new Ollama({
      host: config.host,
      fetch: makeOllamaFetch(withSignal(fetch, signal), streamed),
      // Ollama itself needs no key; a gateway or ollama.com in front of it may.
      ...(config.authToken ? { headers: { Authorization: `Bearer ${config.authToken}` } } : {}),
    });
  // The model's own context length (once), and what fae asks Ollama to hold:
  // its budget, within that. Ollama's default is a few thousand tokens, and
  // a longer prompt is cut by the server without a word.
  const window = askOnce(async () => readOllamaShow(await clientFor(transport.fetch, false, undefined).show({ model: config.model })), undefined);
  const withContext = async (request: OllamaRequest): Promise<OllamaRequest> => {
    const model = await window();
    const numCtx = model === undefined ? config.contextTokens : Math.min(config.contextTokens, model);
    return { ...request, options: { ...request.options, num_ctx: numCtx } };
  };
  const sendPlain = async (request: OllamaRequest, signal: AbortSignal | undefined) => {
    const response = await clientFor(transport.fetch, false, signal).chat({ ...(await withContext(request)), stream: false });
    // A server may answer 200 with an error record instead of a reply.
    const said = (response as { error?: unknown }).error;
    if (typeof said === 'string') throw Error(said);
    return response;
  };
  return makeStreamedProvider<OllamaRequest, ChatResponse>(
    {
      buildRequest: (messages, tools) => ({
        model: config.model,
        messages: toOllamaMessages(messages),
        options: { num_predict: config.maxTokens },
        ...(tools.length > 0 ? { tools: toOllamaTools(tools) } : {}),
        // The model stays loaded, with its KV cache of the prompt, this long (FAE_KEEP_ALIVE).
        ...(config.keepAlive === undefined ? {} : { keep_alive: config.keepAlive }),
      }),
      openStream: async (request, signal) =>
        clientFor(transport.streamFetch, true, signal).chat({ ...(await withContext(request)), stream: true }),
      makeAssembler: makeOllamaAssembler,
      sendPlain,
      isPlainAnswer: isOllamaReply,
      fromPlain: answer => fromOllamaResponse(answer as ChatResponse),
      chatPath: '/api/chat',
      describeFailure,
      window,
    },
    config,
    transport,
  );
};
harden(makeOllamaProviderFromConfig);

/** An Ollama provider from LAL_* settings, whatever LAL_HOST looks like. */
export const makeOllamaProvider = (env: Env, options?: ProviderOptions): Provider =>
  makeOllamaProviderFromConfig(readProviderConfig({ ...env, LAL_PROVIDER: 'ollama' }), env, options);
harden(makeOllamaProvider);

// The Ollama /api/chat adapter, through the ollama client. Fixes upstream
// defects L3 (stored arguments parsed with a bare JSON.parse) and L5 (tool
// results sent with no tool name, so several results in one turn could not
// be told apart).
import { randomUUID } from 'node:crypto';
import { Ollama, type ChatResponse, type Message, type Tool } from 'ollama';
import { readProviderConfig, type Env, type ProviderConfig } from './config.js';
import { describeTransportFailure, makeProviderError, type Failure } from './errors.js';
import { makeChatResult, makeToolCall, makeUsage, parseToolArguments } from './assistant-result.js';
import type { Fetch } from './retrying-fetch.js';
import { makeTransport, type ProviderOptions } from './transport.js';
import { endpointOf, isOllamaReply, wrongShape } from './answer-check.js';
import { truncateMessages } from './truncate.js';
import type { ChatMessage, ChatOptions, ChatResult, Provider, StopReason, ToolSchema } from './types.js';

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
 * Failed responses are read here, because the ollama client prints to the
 * console when an error body is not JSON, and we never log.
 */
const makeStatusCheckingFetch =
  (inner: Fetch): Fetch =>
  async (input, init) => {
    const response = await inner(input, init);
    if (response.ok) {
      return response;
    }
    const text = await response.text().catch(() => '');
    let message = text;
    try {
      const body: unknown = JSON.parse(text);
      const said = (body as { error?: unknown })?.error;
      if (typeof said === 'string') {
        message = said;
      }
    } catch {
      // Not JSON: keep the text.
    }
    throw new OllamaStatusError(response.status, message);
  };

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
  const reason = response.done_reason || undefined;
  return makeChatResult({
    content: response.message?.content,
    toolCalls,
    usage: makeUsage(response.prompt_eval_count, response.eval_count),
    stopReason:
      reason === undefined ? undefined : toolCalls.length > 0 ? 'tool_use' : (STOP_REASONS[reason] ?? 'other'),
  });
};
harden(fromOllamaResponse);

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

/** The adapter for a parsed configuration; `env` feeds only the redactor. */
export const makeOllamaProviderFromConfig = (
  config: ProviderConfig,
  env: Env,
  options: ProviderOptions = {},
): Provider => {
  const transport = makeTransport(config, env, options);
  const makeClient = (fetch: Fetch) =>
    new Ollama({
      host: config.host,
      fetch: makeStatusCheckingFetch(fetch),
      // Ollama itself needs no key; a gateway or ollama.com in front of it may.
      ...(config.authToken ? { headers: { Authorization: `Bearer ${config.authToken}` } } : {}),
    });
  const client = makeClient(transport.fetch);
  /**
   * The ollama client gives a request that is not streamed no signal, and
   * its abort() ends all of its streamed requests at once; so a call that
   * may be aborted gets a client of its own, whose fetch carries the
   * call's signal.
   */
  const clientFor = (signal: AbortSignal | undefined) =>
    signal === undefined
      ? client
      : makeClient((input, init) =>
          transport.fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal }),
        );

  const chat = async (messages: readonly ChatMessage[], tools: readonly ToolSchema[], { signal }: ChatOptions = {}) => {
    const request = {
      model: config.model,
      messages: toOllamaMessages(truncateMessages(messages, config.maxMessages)),
      stream: false as const,
      options: { num_predict: config.maxTokens },
      ...(tools.length > 0 ? { tools: toOllamaTools(tools) } : {}),
    };
    transport.debug(`request ${JSON.stringify(request)}`);
    let response: ChatResponse;
    try {
      response = await clientFor(signal).chat(request);
    } catch (error) {
      transport.debug(`error ${String(error)}`);
      // Aborted by the caller: its reason, not an LLM failure.
      signal?.throwIfAborted();
      throw makeProviderError(describeFailure(error), config, transport.redact);
    }
    transport.debug(`response ${JSON.stringify(response)}`);
    // A server may answer 200 with an error record instead of a reply.
    const said = (response as { error?: unknown }).error;
    if (typeof said === 'string') {
      throw makeProviderError({ kind: 'other', message: said }, config, transport.redact);
    }
    if (!isOllamaReply(response)) {
      const answer = wrongShape(endpointOf(`${config.host.replace(/\/+$/, '')}/api/chat`), response);
      throw makeProviderError({ kind: 'unexpected', answer }, config, transport.redact);
    }
    return fromOllamaResponse(response);
  };

  return harden({ kind: 'ollama', model: config.model, chat });
};
harden(makeOllamaProviderFromConfig);

/** An Ollama provider from LAL_* settings, whatever LAL_HOST looks like. */
export const makeOllamaProvider = (env: Env, options?: ProviderOptions): Provider =>
  makeOllamaProviderFromConfig(readProviderConfig({ ...env, LAL_PROVIDER: 'ollama' }), env, options);
harden(makeOllamaProvider);

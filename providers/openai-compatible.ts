// The OpenAI-compatible Chat Completions adapter (OpenAI, llama.cpp, vLLM,
// LM Studio, gateways), through the openai SDK. Every message is converted
// field by field: upstream passed its own objects through (defect L6).
import OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions.js';
import { readProviderConfig, type Env, type ProviderConfig } from './config.js';
import {
  describeSdkFailure,
  makeProviderError,
  type Failure,
} from './errors.js';
import { makeChatResult, makeToolCall, makeUsage } from './assistant-result.js';
import { makeTransport, type ProviderOptions } from './transport.js';
import { endpointOf, isOpenAICompletion, wrongShape } from './answer-check.js';
import { truncateMessages } from './truncate.js';
import type { ChatMessage, ChatOptions, ChatResult, Provider, StopReason, ToolSchema } from './types.js';

/**
 * Local servers need no key, but the SDK refuses to start without one (or
 * reads OPENAI_API_KEY from the environment, which is not ours to read).
 */
const NO_KEY = 'no-key';

const toOpenAIMessage = (message: ChatMessage): ChatCompletionMessageParam | undefined => {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'assistant': {
      const calls = message.tool_calls ?? [];
      if (calls.length === 0) {
        // An assistant turn with neither text nor calls is invalid; leave it out.
        return message.content === '' ? undefined : { role: 'assistant', content: message.content };
      }
      return {
        role: 'assistant',
        content: message.content === '' ? null : message.content,
        tool_calls: calls.map(call => ({
          id: call.id,
          type: 'function' as const,
          function: { name: call.function.name, arguments: call.function.arguments },
        })),
      };
    }
    case 'tool':
      if (message.tool_call_id === undefined || message.tool_call_id === '') {
        // A result that answers no call would be rejected; keep it as text.
        return { role: 'user', content: `Tool result: ${message.content}` };
      }
      return { role: 'tool', tool_call_id: message.tool_call_id, content: message.content };
    default:
      return { role: 'user', content: message.content };
  }
};

export const toOpenAIMessages = (messages: readonly ChatMessage[]): ChatCompletionMessageParam[] =>
  messages.map(toOpenAIMessage).filter((m): m is ChatCompletionMessageParam => m !== undefined);
harden(toOpenAIMessages);

export const toOpenAITools = (tools: readonly ToolSchema[]): ChatCompletionTool[] =>
  tools.map(({ function: f }) => ({
    type: 'function',
    function: { name: f.name, description: f.description, parameters: { ...f.parameters } },
  }));
harden(toOpenAITools);

const STOP_REASONS: Record<string, StopReason> = harden({
  stop: 'end_turn',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
});

export const fromOpenAICompletion = (completion: ChatCompletion): ChatResult => {
  const choice = completion.choices?.[0];
  const message = choice?.message;
  const toolCalls = (message?.tool_calls ?? []).flatMap(call =>
    call.type === 'function' ? [makeToolCall(call.id, call.function.name, call.function.arguments)] : [],
  );
  const reason = choice?.finish_reason ?? undefined;
  return makeChatResult({
    content: message?.content,
    toolCalls,
    usage: makeUsage(completion.usage?.prompt_tokens, completion.usage?.completion_tokens),
    stopReason: reason === undefined ? undefined : (STOP_REASONS[reason] ?? 'other'),
  });
};
harden(fromOpenAICompletion);

const describeFailure = (error: unknown): Failure => describeSdkFailure(error, OpenAI);

/** The adapter for a parsed configuration; `env` feeds only the redactor. */
export const makeOpenAIProviderFromConfig = (
  config: ProviderConfig,
  env: Env,
  options: ProviderOptions = {},
): Provider => {
  const transport = makeTransport(config, env, options);
  const client = new OpenAI({
    apiKey: config.authToken ?? NO_KEY,
    baseURL: config.host,
    maxRetries: 0,
    timeout: transport.sdkTimeoutMs,
    fetch: transport.fetch,
    logLevel: 'off',
    // Explicit nulls stop the SDK reading OPENAI_ORG_ID and OPENAI_PROJECT_ID.
    organization: null,
    project: null,
  });

  const chat = async (messages: readonly ChatMessage[], tools: readonly ToolSchema[], { signal }: ChatOptions = {}) => {
    const request: ChatCompletionCreateParamsNonStreaming = {
      model: config.model,
      max_tokens: config.maxTokens,
      messages: toOpenAIMessages(truncateMessages(messages, config.maxMessages)),
      ...(tools.length > 0 ? { tools: toOpenAITools(tools) } : {}),
    };
    transport.debug(`request ${JSON.stringify(request)}`);
    let completion: ChatCompletion;
    try {
      completion = await client.chat.completions.create(request, signal ? { signal } : undefined);
    } catch (error) {
      transport.debug(`error ${String(error)}`);
      // Aborted by the caller: its reason, not an LLM failure.
      signal?.throwIfAborted();
      throw makeProviderError(describeFailure(error), config, transport.redact);
    }
    transport.debug(`response ${JSON.stringify(completion)}`);
    if (!isOpenAICompletion(completion)) {
      const answer = wrongShape(endpointOf(`${config.host.replace(/\/+$/, '')}/chat/completions`), completion);
      throw makeProviderError({ kind: 'unexpected', answer }, config, transport.redact);
    }
    return fromOpenAICompletion(completion);
  };

  return harden({ kind: 'openai', model: config.model, chat });
};
harden(makeOpenAIProviderFromConfig);

/**
 * An OpenAI-compatible provider from LAL_* settings (upstream's name: it was
 * written for llama.cpp's server), whatever LAL_HOST looks like.
 */
export const makeLlamaCppProvider = (env: Env, options?: ProviderOptions): Provider =>
  makeOpenAIProviderFromConfig(readProviderConfig({ ...env, LAL_PROVIDER: 'openai' }), env, options);
harden(makeLlamaCppProvider);

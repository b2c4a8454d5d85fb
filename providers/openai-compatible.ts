// The OpenAI-compatible Chat Completions adapter (OpenAI, llama.cpp, vLLM,
// LM Studio, gateways), through the openai SDK. Every message is converted
// field by field: upstream passed its own objects through (defect L6).
// Answers are streamed (server-sent events, with usage in a last chunk),
// plain when the server cannot.
import OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions.js';
import { readProviderConfig, type Env, type ProviderConfig } from './config.js';
import { describeSdkFailure, type Failure } from './errors.js';
import { makeChatResult, makeToolCall, makeUsage, mapStopReason, type UsageCounts } from './assistant-result.js';
import { makeAnswerBuilder, type TextSink } from './answer-builder.js';
import { makeTransport, sdkClientOptions, type ProviderOptions } from './transport.js';
import { isOpenAICompletion } from './answer-check.js';
import { makeStreamedProvider, type StreamAssembler } from './streamed-chat.js';
import type { CacheHints, ChatMessage, ChatOptions, ChatResult, Fetch, Provider, StopReason, ToolSchema } from './types.js';
import { askOnce, readModelList, type ModelListFacts } from './server-window.js';

/** What fae knows of a server that does not say. */
const NO_FACTS: ModelListFacts = harden({ contextTokens: undefined, llamaCpp: false });

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

/** OpenAI's usage: prompt_tokens counts every input token, the cached ones too. */
const openAICounts = (usage: ChatCompletion['usage'] | null | undefined): UsageCounts => ({
  input: usage?.prompt_tokens,
  output: usage?.completion_tokens,
  cached: usage?.prompt_tokens_details?.cached_tokens,
});

export const fromOpenAICompletion = (completion: ChatCompletion): ChatResult => {
  const choice = completion.choices?.[0];
  const message = choice?.message;
  const toolCalls = (message?.tool_calls ?? []).flatMap(call =>
    call.type === 'function' ? [makeToolCall(call.id, call.function.name, call.function.arguments)] : [],
  );
  return makeChatResult({
    content: message?.content,
    toolCalls,
    usage: makeUsage(openAICounts(completion.usage)),
    stopReason: mapStopReason(STOP_REASONS, choice?.finish_reason),
  });
};
harden(fromOpenAICompletion);

/**
 * Assembles a streamed chat completion (the first choice): content deltas
 * in order (each handed to onText), each tool call from the deltas that
 * carry its index (id and name as they come, argument pieces appended),
 * the finish reason, which makes it complete, and the usage that
 * `stream_options.include_usage` asks for in a last chunk with no choices.
 */
export const makeOpenAIAssembler = (onText: TextSink, onProgress?: ChatOptions['onProgress']): StreamAssembler<ChatCompletionChunk> => {
  const answer = makeAnswerBuilder(onText, STOP_REASONS);
  const take = (chunk: ChatCompletionChunk) => {
    answer.usage(openAICounts(chunk.usage));
    // llama.cpp, asked for it, says how far it has read the prompt (return_progress).
    const progress = (chunk as { prompt_progress?: { processed?: unknown; total?: unknown } }).prompt_progress;
    if (progress !== undefined && typeof progress.processed === 'number' && typeof progress.total === 'number') {
      onProgress?.(harden({ processed: progress.processed, total: progress.total }));
      return;
    }
    const choice = chunk.choices?.[0];
    if (choice === undefined) return;
    answer.text(choice.delta?.content);
    for (const { index, id, function: given } of choice.delta?.tool_calls ?? []) {
      answer.call(index, { id, name: given?.name });
      answer.args(index, given?.arguments);
    }
    if (choice.finish_reason) {
      answer.stop(choice.finish_reason);
      answer.end();
    }
  };
  return harden({ take, finish: answer.result });
};
harden(makeOpenAIAssembler);

const describeFailure = (error: unknown): Failure => describeSdkFailure(error, OpenAI);

/**
 * The request, with llama.cpp's cache_prompt, which is not OpenAI's: the
 * SDK sends fields it does not know as they are (its README,
 * "Undocumented request params").
 */
type OpenAIRequest = ChatCompletionCreateParamsNonStreaming & { cache_prompt?: boolean; return_progress?: boolean };

/** The cache hints this wire may add, each left out once a server refuses it. */
const CACHE_FIELDS = harden(['prompt_cache_key', 'cache_prompt'] as const);
type CacheField = (typeof CACHE_FIELDS)[number];

/**
 * OpenAI's own API (and Azure's) refuse a field they do not know, and cache
 * prompts without being asked: llama.cpp's cache_prompt is not sent there.
 */
const takesCachePrompt = (host: string) => {
  const { hostname } = new URL(host);
  return hostname !== 'api.openai.com' && !hostname.endsWith('.openai.azure.com');
};

/**
 * A stable prompt_cache_key per conversation routes its requests to where
 * their prefix is cached (OpenAI); cache_prompt asks llama.cpp's server to
 * keep the prompt's KV cache for the next request (older servers do not
 * by default). Servers that know neither ignore them; one that refuses a
 * field (a 400 naming it) is asked without it from then on.
 */
const makeCacheFields = (host: string) => {
  const sent = new Set<CacheField>(takesCachePrompt(host) ? CACHE_FIELDS : ['prompt_cache_key']);
  return harden({
    of: (cache: CacheHints | undefined) => ({
      ...(cache !== undefined && sent.has('prompt_cache_key') ? { prompt_cache_key: cache.key } : {}),
      ...(cache !== undefined && sent.has('cache_prompt') ? { cache_prompt: true } : {}),
    }),
    refused: (failure: Failure) => {
      if (failure.kind !== 'status' || (failure.status !== 400 && failure.status !== 422)) return undefined;
      const field = CACHE_FIELDS.find(name => failure.message.includes(name));
      if (field !== undefined) sent.delete(field);
      return field;
    },
  });
};

/** The adapter for a parsed configuration; `env` feeds only the redactor. */
export const makeOpenAIProviderFromConfig = (
  config: ProviderConfig,
  env: Env,
  options: ProviderOptions = {},
): Provider => {
  const transport = makeTransport(config, env, options, isOpenAICompletion);
  const makeClient = (fetch: Fetch) =>
    new OpenAI({
      ...sdkClientOptions(config, transport, fetch),
      apiKey: config.authToken ?? NO_KEY,
      // Explicit nulls stop the SDK reading OPENAI_ORG_ID and OPENAI_PROJECT_ID.
      organization: null,
      project: null,
    });
  const streaming = makeClient(transport.streamFetch);
  const plain = makeClient(transport.fetch);
  const cacheFields = makeCacheFields(config.host);
  // What the server's model list says (once): its context, and whether it is llama.cpp's.
  const facts = askOnce(async (): Promise<ModelListFacts> => {
    if (!takesCachePrompt(config.host)) return NO_FACTS;
    return readModelList(await plain.models.list().then(page => ({ data: page.data })), config.model);
  }, NO_FACTS);
  return makeStreamedProvider<OpenAIRequest, ChatCompletionChunk>(
    {
      buildRequest: (messages, tools, cache) => ({
        model: config.model,
        max_tokens: config.maxTokens,
        messages: toOpenAIMessages(messages),
        ...(tools.length > 0 ? { tools: toOpenAITools(tools) } : {}),
        ...cacheFields.of(cache),
      }),
      openStream: async (request, signal) => {
        // llama.cpp says how far it has read a long prompt, when asked: life, and news for the person.
        const { llamaCpp } = await facts();
        return streaming.chat.completions.create(
          { ...request, stream: true, stream_options: { include_usage: true }, ...(llamaCpp ? { return_progress: true } : {}) },
          { signal },
        );
      },
      makeAssembler: makeOpenAIAssembler,
      sendPlain: (request, signal) => plain.chat.completions.create(request, signal ? { signal } : undefined),
      isPlainAnswer: isOpenAICompletion,
      fromPlain: answer => fromOpenAICompletion(answer as ChatCompletion),
      chatPath: '/chat/completions',
      describeFailure,
      refusedField: cacheFields.refused,
      window: async () => (await facts()).contextTokens,
    },
    config,
    transport,
  );
};
harden(makeOpenAIProviderFromConfig);

/**
 * An OpenAI-compatible provider from LAL_* settings (upstream's name: it was
 * written for llama.cpp's server), whatever LAL_HOST looks like.
 */
export const makeLlamaCppProvider = (env: Env, options?: ProviderOptions): Provider =>
  makeOpenAIProviderFromConfig(readProviderConfig({ ...env, LAL_PROVIDER: 'openai' }), env, options);
harden(makeLlamaCppProvider);

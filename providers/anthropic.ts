// The Anthropic Messages API adapter, through @anthropic-ai/sdk, fixing
// upstream defects L2 (LAL_HOST, LAL_MAX_TOKENS and LAL_MAX_MESSAGES were
// ignored), L3 (invalid stored arguments threw) and L4 (message shape).
// Answers are streamed (server-sent events), plain when the server cannot.
import Anthropic from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  RawMessageStreamEvent,
  TextBlockParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages/messages.js';
import { readProviderConfig, type Env, type ProviderConfig } from './config.js';
import { describeSdkFailure, type Failure } from './errors.js';
import { makeChatResult, makeToolCall, makeUsage, mapStopReason, parseToolArguments, type UsageCounts } from './assistant-result.js';
import { makeAnswerBuilder, type TextSink } from './answer-builder.js';
import { makeTransport, sdkClientOptions, type ProviderOptions } from './transport.js';
import { isAnthropicMessage } from './answer-check.js';
import { makeStreamedProvider, type StreamAssembler } from './streamed-chat.js';
import type { CacheHints, ChatMessage, ChatResult, Fetch, Provider, StopReason, ToolSchema } from './types.js';
import { markCacheBreakpoints, type StablePoint } from './anthropic-cache.js';

type Role = 'user' | 'assistant';

/** One message's blocks; empty when the message has nothing to say. */
const toBlocks = (message: ChatMessage): { role: Role; blocks: ContentBlockParam[] } => {
  const blocks: ContentBlockParam[] = [];
  switch (message.role) {
    case 'assistant': {
      if (message.content !== '') {
        blocks.push({ type: 'text', text: message.content });
      }
      for (const call of message.tool_calls ?? []) {
        blocks.push({
          type: 'tool_use',
          id: call.id,
          name: call.function.name,
          input: parseToolArguments(call.function.arguments),
        });
      }
      return { role: 'assistant', blocks };
    }
    case 'tool': {
      if (message.tool_call_id === undefined || message.tool_call_id === '') {
        // Without an id it cannot be a tool_result (upstream sent 'unknown',
        // which the API rejects); keep what it said as plain text.
        if (message.content !== '') {
          blocks.push({ type: 'text', text: `Tool result: ${message.content}` });
        }
      } else {
        blocks.push({
          type: 'tool_result',
          tool_use_id: message.tool_call_id,
          ...(message.content === '' ? {} : { content: message.content }),
        });
      }
      return { role: 'user', blocks };
    }
    default:
      if (message.content !== '') {
        blocks.push({ type: 'text', text: message.content });
      }
      return { role: 'user', blocks };
  }
};

/** Where the first `stableMessages` messages end, in blocks of the request toAnthropicMessages makes. */
const stablePointOf = (messages: readonly ChatMessage[], stableMessages: number): StablePoint => {
  const stable = messages.slice(0, stableMessages);
  return {
    blocks: stable.filter(m => m.role !== 'system').reduce((n, m) => n + toBlocks(m).blocks.length, 0),
    systemBlocks: stable.filter(m => m.role === 'system' && m.content !== '').length,
  };
};

/**
 * The transcript as Anthropic wants it: every system message a text block
 * of `system`, in order (so the standing instructions, the same for every
 * conversation, can be cached apart from a conversation's summary), turns
 * with no content left out, and neighbouring turns of the same role
 * merged, so consecutive tool results travel as one user turn of
 * tool_result blocks and a dropped empty turn never leaves two user turns in
 * a row.
 */
export const toAnthropicMessages = (
  messages: readonly ChatMessage[],
): { system: TextBlockParam[]; messages: MessageParam[] } => {
  const system = messages
    .filter(m => m.role === 'system' && m.content !== '')
    .map((m): TextBlockParam => ({ type: 'text', text: m.content }));
  const turns: { role: Role; blocks: ContentBlockParam[] }[] = [];
  for (const message of messages) {
    if (message.role === 'system') {
      continue;
    }
    const { role, blocks } = toBlocks(message);
    if (blocks.length === 0) {
      continue;
    }
    const last = turns.at(-1);
    if (last && last.role === role) {
      last.blocks.push(...blocks);
    } else {
      turns.push({ role, blocks });
    }
  }
  return {
    system,
    messages: turns.map(({ role, blocks }) => ({ role, content: blocks })),
  };
};
harden(toAnthropicMessages);

export const toAnthropicTools = (tools: readonly ToolSchema[]): Tool[] =>
  tools.map(({ function: f }) => ({
    name: f.name,
    description: f.description,
    input_schema: { type: 'object', ...f.parameters } as Tool['input_schema'],
  }));
harden(toAnthropicTools);

/** Anthropic's usage fields; each may be missing or null (message_delta's). */
interface AnthropicUsage {
  readonly input_tokens?: number | null;
  readonly output_tokens?: number | null;
  readonly cache_creation_input_tokens?: number | null;
  readonly cache_read_input_tokens?: number | null;
}

/**
 * Anthropic's input_tokens counts only what came after the last cache
 * breakpoint; the whole input adds what was read from and written to the
 * cache.
 */
const anthropicCounts = (usage: AnthropicUsage): UsageCounts => {
  const { input_tokens: input, cache_creation_input_tokens: written, cache_read_input_tokens: read } = usage;
  return {
    input: typeof input === 'number' ? input + (written ?? 0) + (read ?? 0) : undefined,
    output: usage.output_tokens,
    cached: read,
    cacheWrite: written,
  };
};

const STOP_REASONS: Record<string, StopReason> = harden({
  end_turn: 'end_turn',
  stop_sequence: 'end_turn',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
});

export const fromAnthropicMessage = (response: Message): ChatResult => {
  const texts: string[] = [];
  const toolCalls = [];
  for (const block of response.content ?? []) {
    if (block.type === 'text') {
      texts.push(block.text);
    } else if (block.type === 'tool_use') {
      toolCalls.push(makeToolCall(block.id, block.name, block.input));
    }
  }
  return makeChatResult({
    content: texts.join(''),
    toolCalls,
    usage: makeUsage(anthropicCounts(response.usage ?? {})),
    stopReason: mapStopReason(STOP_REASONS, response.stop_reason),
  });
};
harden(fromAnthropicMessage);

/**
 * Assembles a streamed Anthropic message: text deltas in order (each handed
 * to onText), each tool_use block's input from its JSON pieces, the stop
 * reason from message_delta, and usage from message_start, updated by the
 * cumulative counts of message_delta (a count it leaves out or sends as
 * null keeps its value). Complete once message_stop came.
 */
export const makeAnthropicAssembler = (onText: TextSink): StreamAssembler<RawMessageStreamEvent> => {
  const answer = makeAnswerBuilder(onText, STOP_REASONS);
  let usage: AnthropicUsage = {};
  const count = (given: AnthropicUsage | null | undefined) => {
    const known = Object.entries(given ?? {}).filter(([, value]) => typeof value === 'number');
    usage = { ...usage, ...Object.fromEntries(known) };
    answer.usage(anthropicCounts(usage));
  };
  const take = (event: RawMessageStreamEvent) => {
    switch (event.type) {
      case 'message_start':
        count(event.message.usage);
        break;
      case 'content_block_start':
        if (event.content_block.type === 'tool_use') {
          const { id, name, input } = event.content_block;
          answer.call(event.index, { id, name, input });
        }
        break;
      case 'content_block_delta':
        if (event.delta.type === 'text_delta') {
          answer.text(event.delta.text);
        } else if (event.delta.type === 'input_json_delta') {
          answer.args(event.index, event.delta.partial_json);
        }
        break;
      case 'message_delta':
        answer.stop(event.delta.stop_reason);
        count(event.usage);
        break;
      case 'message_stop':
        answer.end();
        break;
      default:
        break;
    }
  };
  return harden({ take, finish: answer.result });
};
harden(makeAnthropicAssembler);

const describeFailure = (error: unknown): Failure => describeSdkFailure(error, Anthropic);

/** A gateway in front of Anthropic that does not take cache_control says so with a 400 naming it. */
const refusesCacheControl = (failure: Failure) =>
  failure.kind === 'status' && (failure.status === 400 || failure.status === 422) && failure.message.includes('cache_control');

/** The adapter for a parsed configuration; `env` feeds only the redactor. */
export const makeAnthropicProviderFromConfig = (
  config: ProviderConfig,
  env: Env,
  options: ProviderOptions = {},
): Provider => {
  const transport = makeTransport(config, env, options, isAnthropicMessage);
  const makeClient = (fetch: Fetch) =>
    new Anthropic({
      ...sdkClientOptions(config, transport, fetch),
      apiKey: config.authToken ?? null,
      openTelemetry: false,
    });
  const streaming = makeClient(transport.streamFetch);
  const plain = makeClient(transport.fetch);
  let marksCache = true;
  const buildRequest = (messages: readonly ChatMessage[], tools: readonly ToolSchema[], cache: CacheHints | undefined) => {
    const { system, messages: wire } = toAnthropicMessages(messages);
    const offered = toAnthropicTools(tools);
    if (cache !== undefined && marksCache) {
      markCacheBreakpoints({ system, messages: wire, tools: offered }, stablePointOf(messages, cache.stableMessages));
    }
    return {
      model: config.model,
      max_tokens: config.maxTokens,
      messages: wire,
      ...(system.length === 0 ? {} : { system }),
      ...(offered.length > 0 ? { tools: offered } : {}),
    };
  };
  return makeStreamedProvider<MessageCreateParamsNonStreaming, RawMessageStreamEvent>(
    {
      buildRequest,
      openStream: (request, signal) => streaming.messages.create({ ...request, stream: true }, { signal }),
      makeAssembler: makeAnthropicAssembler,
      sendPlain: (request, signal) => plain.messages.create(request, signal ? { signal } : undefined),
      isPlainAnswer: isAnthropicMessage,
      fromPlain: answer => fromAnthropicMessage(answer as Message),
      chatPath: '/v1/messages',
      describeFailure,
      refusedField: failure => {
        if (!refusesCacheControl(failure)) return undefined;
        marksCache = false;
        return 'cache_control';
      },
    },
    config,
    transport,
  );
};
harden(makeAnthropicProviderFromConfig);

/** An Anthropic provider from LAL_* settings, whatever LAL_HOST looks like. */
export const makeAnthropicProvider = (env: Env, options?: ProviderOptions): Provider =>
  makeAnthropicProviderFromConfig(
    readProviderConfig({ ...env, LAL_PROVIDER: 'anthropic' }),
    env,
    options,
  );
harden(makeAnthropicProvider);

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
  Tool,
} from '@anthropic-ai/sdk/resources/messages/messages.js';
import { readProviderConfig, type Env, type ProviderConfig } from './config.js';
import { describeSdkFailure, type Failure } from './errors.js';
import { makeChatResult, makeToolCall, makeUsage, mapStopReason, parseToolArguments } from './assistant-result.js';
import { makeAnswerBuilder, type TextSink } from './answer-builder.js';
import type { Fetch } from './retrying-fetch.js';
import { makeTransport, sdkClientOptions, type ProviderOptions } from './transport.js';
import { isAnthropicMessage } from './answer-check.js';
import { makeStreamedProvider, type StreamAssembler } from './streamed-chat.js';
import type { ChatMessage, ChatResult, Provider, StopReason, ToolSchema } from './types.js';

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

/**
 * The transcript as Anthropic wants it: every system message joined into
 * `system`, turns with no content left out, and neighbouring turns of the
 * same role merged, so consecutive tool results travel as one user turn of
 * tool_result blocks and a dropped empty turn never leaves two user turns in
 * a row.
 */
export const toAnthropicMessages = (
  messages: readonly ChatMessage[],
): { system: string; messages: MessageParam[] } => {
  const system = messages
    .filter(m => m.role === 'system' && m.content !== '')
    .map(m => m.content)
    .join('\n\n');
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
    usage: makeUsage(response.usage?.input_tokens, response.usage?.output_tokens),
    stopReason: mapStopReason(STOP_REASONS, response.stop_reason),
  });
};
harden(fromAnthropicMessage);

/**
 * Assembles a streamed Anthropic message: text deltas in order (each handed
 * to onText), each tool_use block's input from its JSON pieces, the stop
 * reason from message_delta, and usage from message_start, updated by the
 * cumulative counts of message_delta. Complete once message_stop came.
 */
export const makeAnthropicAssembler = (onText: TextSink): StreamAssembler<RawMessageStreamEvent> => {
  const answer = makeAnswerBuilder(onText, STOP_REASONS);
  const take = (event: RawMessageStreamEvent) => {
    switch (event.type) {
      case 'message_start':
        answer.usage(event.message.usage?.input_tokens, event.message.usage?.output_tokens);
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
        answer.usage(event.usage?.input_tokens, event.usage?.output_tokens);
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
  return makeStreamedProvider<MessageCreateParamsNonStreaming, RawMessageStreamEvent>(
    {
      buildRequest: (messages, tools) => {
        const { system, messages: wire } = toAnthropicMessages(messages);
        return {
          model: config.model,
          max_tokens: config.maxTokens,
          messages: wire,
          ...(system === '' ? {} : { system }),
          ...(tools.length > 0 ? { tools: toAnthropicTools(tools) } : {}),
        };
      },
      openStream: (request, signal) => streaming.messages.create({ ...request, stream: true }, { signal }),
      makeAssembler: makeAnthropicAssembler,
      sendPlain: (request, signal) => plain.messages.create(request, signal ? { signal } : undefined),
      isPlainAnswer: isAnthropicMessage,
      fromPlain: answer => fromAnthropicMessage(answer as Message),
      chatPath: '/v1/messages',
      describeFailure,
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

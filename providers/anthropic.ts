// The Anthropic Messages API adapter, through @anthropic-ai/sdk, fixing
// upstream defects L2 (LAL_HOST, LAL_MAX_TOKENS and LAL_MAX_MESSAGES were
// ignored), L3 (invalid stored arguments threw) and L4 (message shape).
import Anthropic from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages/messages.js';
import { readProviderConfig, type Env, type ProviderConfig } from './config.js';
import {
  describeSdkFailure,
  makeProviderError,
  type Failure,
} from './errors.js';
import { makeChatResult, makeToolCall, makeUsage, parseToolArguments } from './assistant-result.js';
import { makeTransport, type ProviderOptions } from './transport.js';
import { endpointOf, isAnthropicMessage, wrongShape } from './answer-check.js';
import { truncateMessages } from './truncate.js';
import type { ChatMessage, ChatOptions, ChatResult, Provider, StopReason, ToolSchema } from './types.js';

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
  const reason = response.stop_reason ?? undefined;
  return makeChatResult({
    content: texts.join(''),
    toolCalls,
    usage: makeUsage(response.usage?.input_tokens, response.usage?.output_tokens),
    stopReason: reason === undefined ? undefined : (STOP_REASONS[reason] ?? 'other'),
  });
};
harden(fromAnthropicMessage);

const describeFailure = (error: unknown): Failure => describeSdkFailure(error, Anthropic);

/** The adapter for a parsed configuration; `env` feeds only the redactor. */
export const makeAnthropicProviderFromConfig = (
  config: ProviderConfig,
  env: Env,
  options: ProviderOptions = {},
): Provider => {
  const transport = makeTransport(config, env, options);
  const client = new Anthropic({
    apiKey: config.authToken ?? null,
    baseURL: config.host,
    maxRetries: 0,
    timeout: transport.sdkTimeoutMs,
    fetch: transport.fetch,
    logLevel: 'off',
    openTelemetry: false,
  });

  const chat = async (messages: readonly ChatMessage[], tools: readonly ToolSchema[], { signal }: ChatOptions = {}) => {
    const { system, messages: wire } = toAnthropicMessages(
      truncateMessages(messages, config.maxMessages),
    );
    const request: MessageCreateParamsNonStreaming = {
      model: config.model,
      max_tokens: config.maxTokens,
      messages: wire,
      ...(system === '' ? {} : { system }),
      ...(tools.length > 0 ? { tools: toAnthropicTools(tools) } : {}),
    };
    transport.debug(`request ${JSON.stringify(request)}`);
    let response: Message;
    try {
      response = await client.messages.create(request, signal ? { signal } : undefined);
    } catch (error) {
      transport.debug(`error ${String(error)}`);
      // Aborted by the caller: its reason, not an LLM failure.
      signal?.throwIfAborted();
      throw makeProviderError(describeFailure(error), config, transport.redact);
    }
    transport.debug(`response ${JSON.stringify(response)}`);
    if (!isAnthropicMessage(response)) {
      const answer = wrongShape(endpointOf(`${config.host.replace(/\/+$/, '')}/v1/messages`), response);
      throw makeProviderError({ kind: 'unexpected', answer }, config, transport.redact);
    }
    return fromAnthropicMessage(response);
  };

  return harden({ kind: 'anthropic', model: config.model, chat });
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

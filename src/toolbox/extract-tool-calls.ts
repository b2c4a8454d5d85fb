// Some models (local ones especially) write their tool calls into the text
// as <tool_call>{"name": …, "arguments": {…}}</tool_call> instead of using
// the structured field, and wrap their reasoning in <think>…</think>. This
// module recovers those calls and strips the reasoning, so neither the
// calls are lost nor the reasoning fed back to the model.
import type { ToolCall } from '../../providers/types.js';
import { isRecord } from '../is-record.js';

export interface ExtractedToolCalls {
  /** The content with tool-call and think blocks removed, trimmed. */
  readonly content: string;
  readonly toolCalls: readonly ToolCall[];
}

const TOOL_CALL_BLOCK = /<tool_call>([\s\S]*?)<\/tool_call>/g;
// A closed think block, or an unclosed one that runs to the end.
const THINK_BLOCK = /<think>[\s\S]*?(?:<\/think>|$)/g;
// A stray closing tag left when the opening one was in the prompt.
const STRAY_THINK_CLOSE = /^[\s\S]*?<\/think>/;

/** Removes <think> blocks (closed or not) from assistant text. */
export const stripThinkBlocks = (content: string): string => {
  // No tag at all (most answers): nothing to strip.
  if (!content.includes('think>')) return content.trim();
  let text = content.replace(THINK_BLOCK, '');
  if (!text.includes('<think>') && text.includes('</think>')) {
    text = text.replace(STRAY_THINK_CLOSE, '');
  }
  return text.trim();
};
harden(stripThinkBlocks);

/** Turns the arguments found in a block into the JSON text a ToolCall holds. */
const argumentsText = (value: unknown): string => {
  if (typeof value === 'string') {
    // Already text: keep it verbatim, so invalid JSON is reported as such
    // when the call runs instead of being silently replaced here.
    return value;
  }
  return JSON.stringify(value ?? {});
};

// The non-greedy fallback for a block that is not valid JSON as a whole:
// find the name, and the first balanced-looking arguments object after it.
const NAME_FIELD = /"name"\s*:\s*"([^"]+)"/;
const ARGUMENTS_FIELD = /"(?:arguments|parameters)"\s*:\s*(\{[\s\S]*?\})\s*[,}]/;

const parseBlock = (
  body: string,
): { name: string; arguments: string } | undefined => {
  const text = body.trim();
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed) && typeof parsed.name === 'string') {
      return {
        name: parsed.name,
        arguments: argumentsText(parsed.arguments ?? parsed.parameters),
      };
    }
    return undefined;
  } catch {
    const name = NAME_FIELD.exec(text)?.[1];
    if (name === undefined) {
      return undefined;
    }
    return { name, arguments: ARGUMENTS_FIELD.exec(text)?.[1] ?? '{}' };
  }
};

export type MakeCallId = () => string;

let fallbackCounter = 0;
const defaultCallId: MakeCallId = () => {
  fallbackCounter += 1;
  return `call_text_${fallbackCounter}_${Math.random().toString(36).slice(2, 10)}`;
};

/**
 * Finds <tool_call> blocks in assistant content. Each call gets a fresh id
 * from `makeCallId` (unique per agent by default). Blocks that name no tool
 * are left in the content, so nothing the model wrote disappears unseen.
 */
export const extractToolCallsFromContent = (
  content: string,
  makeCallId: MakeCallId = defaultCallId,
): ExtractedToolCalls => {
  const toolCalls: ToolCall[] = [];
  const remaining = content.replace(TOOL_CALL_BLOCK, (block, body: string) => {
    const call = parseBlock(body);
    if (call === undefined) {
      return block;
    }
    toolCalls.push({
      id: makeCallId(),
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    });
    return '';
  });
  return harden({ content: stripThinkBlocks(remaining), toolCalls });
};
harden(extractToolCallsFromContent);

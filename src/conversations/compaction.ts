// Folding the oldest turns of a conversation into a summary the model
// writes (one extra model call). The summary replaces those turns at the
// head of the conversation; the most recent turns stay verbatim. A turn is
// folded whole, so a tool call is never separated from its result.
import type { ChatMessage, ChatOptions, Provider, Usage } from '../../providers/types.js';
import { estimateMessages } from './tokens.js';

const SUMMARY_INSTRUCTIONS = `You keep the memory of a conversation between Fae, an assistant, and one correspondent. You are given the summary so far (if any) and the exchanges that follow it. Write a new summary that replaces both, so that Fae can continue the conversation from it alone: keep facts, names, numbers, decisions, what was asked and answered, what Fae did with its tools and what is still open; leave out pleasantries and anything repeated. Write in the third person ("The correspondent asked…", "Fae answered…"), plain text, no preamble.`;

/** Longest text of one message shown to the summariser. */
const MAX_RENDERED_MESSAGE = 4_000;

const clip = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max)} … (${text.length - max} more characters)` : text;

/** A turn as plain text for the summariser. */
export const renderTurn = (messages: readonly ChatMessage[]): string =>
  messages
    .map(message => {
      switch (message.role) {
        case 'user':
          return `Correspondent: ${clip(message.content, MAX_RENDERED_MESSAGE)}`;
        case 'tool':
          return `Tool ${message.name ?? ''} returned: ${clip(message.content, MAX_RENDERED_MESSAGE)}`;
        default: {
          const calls = (message.tool_calls ?? []).map(
            call => `Fae called ${call.function.name}(${clip(call.function.arguments, 1_000)})`,
          );
          const said = message.content === '' ? [] : [`Fae: ${clip(message.content, MAX_RENDERED_MESSAGE)}`];
          return [...said, ...calls].join('\n');
        }
      }
    })
    .filter(line => line !== '')
    .join('\n');
harden(renderTurn);

/**
 * How many of the oldest turns to fold so that the rest, with the fixed
 * part of the request, comes down to `target` tokens. Never folds the last
 * `keep` turns.
 */
export const turnsToFold = (
  turns: readonly (readonly ChatMessage[])[],
  fixedTokens: number,
  target: number,
  keep = 0,
): number => {
  let total = fixedTokens + turns.reduce((sum, turn) => sum + estimateMessages(turn), 0);
  let count = 0;
  while (count < turns.length - keep && total > target) {
    total -= estimateMessages(turns[count]);
    count += 1;
  }
  return count;
};
harden(turnsToFold);

export interface Summary {
  readonly text: string;
  readonly usage: Usage | undefined;
}

/**
 * Asks the model for the summary of `previous` followed by `turns`, in at
 * most about `maxTokens` tokens (longer answers are cut there). `options`
 * go to the provider as they are (its signal aborts the request).
 */
export const summarize = async (
  provider: Provider,
  previous: string | undefined,
  turns: readonly (readonly ChatMessage[])[],
  maxTokens: number,
  options: ChatOptions = {},
): Promise<Summary> => {
  const maxChars = maxTokens * 4;
  const words = Math.max(50, Math.floor(maxTokens * 0.6));
  const parts = [
    previous === undefined ? 'There is no summary yet.' : `The summary so far:\n${previous}`,
    `The exchanges that follow it:\n${turns.map(renderTurn).join('\n\n')}`,
    `Write the new summary in at most ${words} words.`,
  ];
  const result = await provider.chat(
    harden([
      { role: 'system', content: SUMMARY_INSTRUCTIONS },
      { role: 'user', content: parts.join('\n\n') },
    ]),
    harden([]),
    options,
  );
  const text = (result.message.content ?? '').replace(/<think>[\s\S]*?<\/think>/g, '').trim();
  if (text === '') throw Error('the model wrote an empty summary');
  return harden({ text: clip(text, maxChars), usage: result.usage });
};
harden(summarize);

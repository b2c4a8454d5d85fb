// LAL_MAX_MESSAGES: send only a recent window of the transcript, without
// breaking it. Upstream kept the last N messages blindly, which dropped the
// system prompt and could open the window with a tool result whose call was
// cut off, a request every API rejects (upstream defect L6).
import type { ChatMessage } from './types.js';

/**
 * The leading system messages, then the recent conversation. The window
 * holds about the last `maxMessages` non-system messages, and always opens at
 * a user turn, so no tool result is separated from its call and no reply
 * from its question. When the last `maxMessages` hold no user turn (a long
 * run of tool calls), the window reaches back to the latest user turn
 * instead: a request that is a little longer beats one the server refuses or
 * one that has lost the task.
 */
export const truncateMessages = (
  messages: readonly ChatMessage[],
  maxMessages: number | undefined,
): readonly ChatMessage[] => {
  let head = 0;
  while (head < messages.length && messages[head].role === 'system') {
    head += 1;
  }
  const rest = messages.length - head;
  if (maxMessages === undefined || rest <= maxMessages) {
    return messages;
  }
  const isUserAt = (index: number) => messages[index].role === 'user';
  let start = messages.length - maxMessages;
  while (start < messages.length && !isUserAt(start)) {
    start += 1;
  }
  if (start === messages.length) {
    // No user turn in the window: reach back to the latest one.
    start = messages.length - maxMessages;
    while (start > head && !isUserAt(start)) {
      start -= 1;
    }
    if (!isUserAt(start)) {
      // No user turn at all: at least never open with a tool result.
      start = messages.length - maxMessages;
      while (start < messages.length - 1 && messages[start].role === 'tool') {
        start += 1;
      }
    }
  }
  return harden([...messages.slice(0, head), ...messages.slice(start)]);
};
harden(truncateMessages);

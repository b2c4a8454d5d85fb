// LAL_MAX_MESSAGES: send only a recent window of the transcript, without
// breaking it. Upstream kept the last N messages blindly, which dropped the
// system prompt and could open the window with a tool result whose call was
// cut off, a request every API rejects (upstream defect L6). Later ports
// reached back to the latest user turn when a long turn filled the window,
// so the "limit" could be passed; here it is an exact ceiling. Lists are
// joined by concat, not spread, which lockdown makes slow on long arrays
// (conversations/requests/requests.ts), and frozen, not hardened: their messages
// are immutable already, and hardening a list of a thousand read every
// element's descriptor at every request.
import type { ChatMessage } from './types.js';

/**
 * Whether the non-system messages of a candidate request are acceptable.
 * Monotone: a list never fits where a shorter end of it does not.
 */
export type WindowFits = (rest: readonly ChatMessage[]) => boolean;

/**
 * The messages after the latest user turn, cut into groups that must stay
 * together: an assistant message with the tool results that follow it.
 * Results with no call before them form a group of their own, which is
 * never chosen (a window never opens with a tool result).
 */
const groupsOf = (messages: readonly ChatMessage[]) => {
  const groups: ChatMessage[][] = [];
  for (const message of messages) {
    if (message.role === 'tool' && groups.length > 0) {
      groups[groups.length - 1].push(message);
    } else {
      groups.push([message]);
    }
  }
  return groups;
};

/**
 * The earliest user message of `rest`, up to `latest` (one whose end
 * fits), at which the end of `rest` still fits. Found by halving: fits is
 * monotone, and trying each turn in turn, each try measuring the whole
 * end, took time quadratic in the conversation's length.
 */
const earliestFitting = (rest: readonly ChatMessage[], latest: number, fits: WindowFits) => {
  const starts: number[] = [];
  for (let i = 0; i <= latest; i += 1) if (rest[i].role === 'user') starts.push(i);
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (fits(rest.slice(starts[middle]))) high = middle;
    else low = middle + 1;
  }
  return starts[low];
};

/**
 * The leading system messages, then the longest recent part of the rest
 * that `fits` accepts and that opens at a user turn, so no tool result is
 * separated from its call and no reply from its question. When even the
 * latest user turn does not fit whole (a long run of tool calls), the window
 * is that user message and the most recent complete call/result groups that
 * fit; the user message stays even when nothing else does, since a request
 * without the task is useless.
 */
export const windowMessages = (
  messages: readonly ChatMessage[],
  fits: WindowFits,
): readonly ChatMessage[] => {
  let head = 0;
  while (head < messages.length && messages[head].role === 'system') {
    head += 1;
  }
  const system = messages.slice(0, head);
  const rest = messages.slice(head);
  if (fits(rest)) {
    return messages;
  }
  let latestUser = -1;
  for (let i = rest.length - 1; i >= 0; i -= 1) {
    if (rest[i].role === 'user') {
      latestUser = i;
      break;
    }
  }
  if (latestUser >= 0 && fits(rest.slice(latestUser))) {
    return Object.freeze(system.concat(rest.slice(earliestFitting(rest, latestUser, fits))));
  }
  const opening = latestUser >= 0 ? [rest[latestUser]] : [];
  const groups = groupsOf(rest.slice(latestUser + 1));
  let kept: ChatMessage[] = [];
  for (let g = groups.length - 1; g >= 0; g -= 1) {
    if (groups[g][0].role === 'tool') break;
    const candidate = groups[g].concat(kept);
    if (!fits(opening.concat(candidate))) break;
    kept = candidate;
  }
  return Object.freeze(system.concat(opening, kept));
};
harden(windowMessages);

/**
 * At most `maxMessages` non-system messages (every leading system message
 * stays), chosen as windowMessages does.
 */
export const truncateMessages = (
  messages: readonly ChatMessage[],
  maxMessages: number | undefined,
): readonly ChatMessage[] =>
  maxMessages === undefined
    ? messages
    : windowMessages(messages, rest => rest.length <= maxMessages);
harden(truncateMessages);

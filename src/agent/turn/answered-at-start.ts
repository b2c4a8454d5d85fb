// Which messages in fae's inbox were answered before a restart, told by
// the inbox itself rather than the conversation store (which may be
// unreadable just then). On August fae keeps its latest answered messages
// undismissed for a while, open to edits (editable-answers.ts); after a
// restart they come back with the replay, beside fae's own copies of its
// answers. A message with a finished own reply (done, and not a progress
// reply still saying it is working) was answered: it is not answered again.
// Its answer is kept too: a restart between the answer and the store of
// its turn left the conversation without it (message-turn.ts).
import type { DaemonAdapter } from '../../daemon/adapter.js';
import { messageText } from '../../daemon/message-format.js';
import { WORKING } from './progress-reply.js';

/**
 * The messages fae's own finished replies in its inbox answer: the text of
 * the latest reply to each, by the id of the message it answers.
 */
export const answeredAtStart = async (
  daemon: Pick<DaemonAdapter, 'listMessages' | 'isOwnMessage'>,
): Promise<ReadonlyMap<string, string>> => {
  const messages = await daemon.listMessages();
  const answered = new Map<string, string>();
  // The inbox lists by number, so a later reply replaces an earlier one.
  for (const message of messages) {
    const { replyTo } = message;
    if (replyTo === undefined || !daemon.isOwnMessage(message) || !message.done) continue;
    const text = messageText(message);
    if (!text.startsWith(WORKING)) answered.set(replyTo, text);
  }
  return harden(answered);
};
harden(answeredAtStart);

// Which messages in fae's inbox were answered before a restart, told by
// the inbox itself rather than the conversation store (which may be
// unreadable just then). On August fae keeps its latest answered messages
// undismissed for a while, open to edits (editable-answers.ts); after a
// restart they come back with the replay, beside fae's own copies of its
// answers. A message with a finished own reply (done, and not a progress
// reply still saying it is working) was answered: it is not answered again.
import type { DaemonAdapter } from '../daemon/adapter.js';
import { messageText } from '../daemon/message-format.js';
import { WORKING } from './progress-reply.js';

/** The ids of the messages fae's own finished replies in its inbox answer. */
export const answeredAtStart = async (daemon: Pick<DaemonAdapter, 'listMessages' | 'isOwnMessage'>) => {
  const messages = await daemon.listMessages();
  const answered = new Set<string>();
  for (const message of messages) {
    const { replyTo } = message;
    if (replyTo === undefined || !daemon.isOwnMessage(message) || !message.done) continue;
    if (messageText(message).startsWith(WORKING)) continue;
    answered.add(replyTo);
  }
  return harden(answered);
};
harden(answeredAtStart);

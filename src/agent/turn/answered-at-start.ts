// What fae's inbox says of its replies as fae starts, told by the inbox
// itself rather than the conversation store (which may be unreadable just
// then). On August fae keeps its latest answered messages undismissed for
// a while, open to edits (editable-answers.ts); after a restart they come
// back with the replay, beside fae's own copies of its answers.
//
// - A message with a finished own reply (done, and not a progress reply
//   still saying it is working) was answered: it is not answered again.
//   Its answer is kept too: a restart between the answer and the store of
//   its turn left the conversation without it (message-turn.ts).
// - A progress reply a restart left unfinished ("Working on it…", or
//   "waiting for my host's approval") belongs to a turn that no longer
//   runs. Where its message comes again, the new turn takes it over (on
//   August it is edited into the new answer; elsewhere no second one is
//   posted); where it does not, it is finished now, on August, saying so.
import type { DaemonAdapter, InboxMessage } from '../../daemon/adapter.js';
import { messageText } from '../../daemon/message-format.js';
import { WORKING } from './progress-reply.js';

/** One of fae's own progress replies a restart left unfinished. */
export interface LeftReply {
  /** fae's own copy of it. */
  readonly copy: bigint;
  /** What it says. */
  readonly text: string;
}

export interface AtStart {
  /** The text of the latest finished reply to each message answered, by its id. */
  readonly answered: ReadonlyMap<string, string>;
  /** The unfinished reply to each message that comes again with the replay, by its id: its new turn takes it over. */
  readonly unfinished: ReadonlyMap<string, LeftReply>;
  /** Unfinished replies to messages that do not come again: answered since, or gone from the inbox. */
  readonly stale: readonly (LeftReply & { readonly answered: boolean })[];
}

/** Whether `message` is a reply of fae's still saying it works on its message. */
const isUnfinished = (message: InboxMessage) => message.done === false || messageText(message).startsWith(WORKING);

export const readAtStart = async (daemon: Pick<DaemonAdapter, 'listMessages' | 'isOwnMessage'>): Promise<AtStart> => {
  const messages = await daemon.listMessages();
  const answered = new Map<string, string>();
  const left = new Map<string, LeftReply>();
  // Every undismissed message of another comes again with the replay.
  const replayed = new Set<string>();
  // The inbox lists by number, so a later reply replaces an earlier one.
  for (const message of messages) {
    const { replyTo, messageId } = message;
    if (!daemon.isOwnMessage(message)) {
      if (messageId !== undefined) replayed.add(messageId);
      continue;
    }
    if (replyTo === undefined) continue;
    if (isUnfinished(message)) left.set(replyTo, harden({ copy: message.number, text: messageText(message) }));
    else answered.set(replyTo, messageText(message));
  }
  const unfinished = new Map<string, LeftReply>();
  const stale: (LeftReply & { readonly answered: boolean })[] = [];
  for (const [id, reply] of left) {
    if (replayed.has(id) && !answered.has(id)) unfinished.set(id, reply);
    else stale.push(harden({ ...reply, answered: answered.has(id) }));
  }
  return harden({ answered, unfinished, stale });
};
harden(readAtStart);

/** What a stale reply is finished with, on August. */
export const staleReplyText = ({ answered }: { readonly answered: boolean }) =>
  answered
    ? '(I was restarted while working on this; my answer is in another reply.)'
    : '(I was restarted while working on this, and it no longer waits for me: nothing more comes here.)';
harden(staleReplyText);

/**
 * The replies a restart left unfinished, each taken over by the first turn
 * of its message since; `ended` gives back the copy of the one a turn took,
 * once that turn has ended.
 */
export const makeLeftReplies = (atStart: Pick<AtStart, 'unfinished'>) => {
  /** The messages whose unfinished reply a turn took over. */
  const taken = new Set<string>();
  /** The copies of those replies, by the number of the message whose turn took one over. */
  const copies = new Map<bigint, bigint>();
  return harden({
    /** The unfinished reply a restart left to `message`, for its first turn since. */
    take: ({ messageId, number }: Pick<InboxMessage, 'messageId' | 'number'>) => {
      if (messageId === undefined || taken.has(messageId)) return undefined;
      const left = atStart.unfinished.get(messageId);
      if (left !== undefined) {
        taken.add(messageId);
        copies.set(number, left.copy);
      }
      return left;
    },
    /** The turn of message `number` ended: the copy of the reply it took over, if it took one. */
    ended: (number: bigint) => {
      const copy = copies.get(number);
      copies.delete(number);
      return copy;
    },
  });
};
harden(makeLeftReplies);

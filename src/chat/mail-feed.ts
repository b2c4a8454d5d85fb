// The host's mail as the chat shows it. followMessages may deliver a
// message twice (the replay and the live feed both hold it), and on the
// August daemon a sender may edit what it sent: the daemon publishes the
// same number again with a new date, new strings and `done` (false while
// the sender is still writing it). fae does this with a progress reply:
// "Working on it…", edited as the turn goes, and finally edited into the
// answer (../shared/spec/endo-guest-api-next.md §3.4).
//
// So, per message number:
// - a revision that shows nothing new (a repeat, or an older one arriving
//   late) is skipped;
// - an unfinished revision (done: false) is progress, for the status line,
//   and so is fae's "Working on it…" placeholder, which arrives done (a
//   new message always does) but says what fae does, not what it answers;
// - a finished one is printed: plainly the first time, and plainly too
//   when it finishes what was shown as progress (the answer); a later
//   revision of a printed message is printed again, marked as edited.
import type { DaemonAdapter, InboxMessage } from '../daemon/adapter.js';
import { messageText } from '../daemon/message-format.js';
import type { PendingAnswers } from './pending.js';
import type { Progress } from './progress.js';
import type { Screen } from './screen.js';
import { WORKING } from '../agent/turn/progress-reply.js';

/** A message that reached the host, ready to print. */
export interface MailView {
  readonly number: bigint;
  /** 'you' for the user's own messages, 'fae', or the sender's pet name. */
  readonly from: string;
  /** The recipient's name, for the user's own messages. */
  readonly to: string;
  readonly text: string;
}

export type Shown = 'skip' | 'progress' | 'mail' | 'edited';

interface Seen {
  readonly date: string;
  readonly done: boolean;
  readonly text: string;
  /** An answer was printed for progress shown before. */
  readonly answered: boolean;
}

export const makeRevisions = () => {
  const seen = new Map<bigint, Seen>();

  /** How to show this revision of a message whose text is `text`. */
  const show = (record: Pick<InboxMessage, 'number' | 'date' | 'done'>, text: string): Shown => {
    const last = seen.get(record.number);
    // fae's placeholder counts as unfinished: its answer, when it comes, is printed as the answer.
    const done = record.done && !(last === undefined && text.startsWith(WORKING));
    // ISO dates order as strings; the daemon gives every edit a new one.
    if (last !== undefined && (record.date < last.date || (last.done === done && last.text === text))) return 'skip';
    let shown: Shown;
    if (!done) shown = 'progress';
    else if (last === undefined || (!last.done && !last.answered)) shown = 'mail';
    else shown = 'edited';
    const answered = (last?.answered ?? false) || (shown === 'mail' && last !== undefined);
    seen.set(record.number, harden({ date: record.date, done, text, answered }));
    return shown;
  };
  return harden({ show });
};
harden(makeRevisions);
export type Revisions = ReturnType<typeof makeRevisions>;

export interface MailFeedHandlers {
  /** The host's own copy of a message it sent, first seen. */
  readonly onOwn: (record: InboxMessage) => void;
  /** A revision of someone else's message to show (awaited: mail is shown in order). */
  readonly onRevision: (record: InboxMessage, shown: Exclude<Shown, 'skip'>) => void | Promise<void>;
}

/**
 * Follows the host's inbox through its daemon adapter, which says whether
 * a revision is done whatever the daemon's generation (true where there
 * are no edits). Ends only when the inbox does (the daemon stopped).
 */
export const followMail = async (
  hostDaemon: Pick<DaemonAdapter, 'followMessages' | 'isOwnMessage'>,
  { onOwn, onRevision }: MailFeedHandlers,
) => {
  const revisions = makeRevisions();
  // One at a time: messages are shown in the order they arrived.
  for await (const record of hostDaemon.followMessages()) {
    const shown = revisions.show(record, messageText(record));
    if (shown === 'skip') continue;
    if (!hostDaemon.isOwnMessage(record)) await onRevision(record, shown);
    else if (shown === 'mail') onOwn(record);
  }
};
harden(followMail);

export interface ShowOptions {
  readonly screen: Pick<Screen, 'mail'>;
  readonly progress: Progress;
  readonly pending: PendingAnswers;
}

/** Where each revision goes: the transcript, or, while still being written, the status line. */
export const showRevision =
  ({ screen, progress, pending }: ShowOptions) =>
  (mail: MailView, shown: Exclude<Shown, 'skip'>) => {
    pending.activity();
    // A reply fae is still writing is what it is doing, not what it said.
    if (shown === 'progress') {
      progress.unfinishedReply(mail.text);
      return;
    }
    progress.replyShown();
    screen.mail(shown === 'edited' ? `${mail.from} (edited)` : mail.from, mail.text);
  };
harden(showRevision);

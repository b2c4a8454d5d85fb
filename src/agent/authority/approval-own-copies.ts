// fae's own copies of what it asks its host (issue 22): its approval
// requests (a form on May and August, with the whole request as a message
// before it; a request on February) and, on February, the eval-requests of
// evaluate. No tool sees them; the message is dismissed from fae's inbox
// at once (the host keeps its copy), February's requests once the host
// has settled them. One from before a restart has no one
// waiting for it: an approval request answered then is told it ran
// nothing, and the host is told to reject an old eval-request, which the
// daemon would still run if approved.
import type { InboxMessage } from '../../daemon/adapter.js';
import type { Logger } from '../../logging/log.js';
import { APPROVAL_HEADING } from './approval-text.js';
import { messageText } from '../../daemon/message-format.js';
import { makeRecentMap } from '../../recent-map.js';
import { REPORTED_ALREADY, inBackground } from '../../background.js';

/** Copies and requests remembered, at most. */
const REMEMBERED = 256;

export const STALE_TEXT =
  'That approval request is no longer waiting: I was restarted after I sent it, and nothing was run. If the model still needs it, it asks again.';

/** A request of this run: settled yet, and the number of its own copy once it came. */
interface OwnCopy {
  settled: boolean;
  number?: bigint;
}

/** A request's first line, which holds its tag: what tells its copy apart. */
export const titleOf = (description: string) => description.split('\n')[0];
harden(titleOf);

export const makeOwnRequestCopies = ({
  dismiss,
  tell,
  logger,
  startedAt = Date.now(),
}: {
  readonly dismiss: (number: bigint) => Promise<boolean>;
  readonly tell: (text: string) => Promise<void>;
  readonly logger: Logger;
  /** Copies stored before this are from an earlier run of fae. */
  readonly startedAt?: number;
}) => {
  const hidden = makeRecentMap<bigint, true>(REMEMBERED);
  const ofThisRun = makeRecentMap<string, OwnCopy>(REMEMBERED);

  const noteEvalRequest = (message: InboxMessage) => {
    // dismiss logs its own failures; `settled` may reject (a declined evaluation): it is settled all the same.
    const settled = Promise.resolve(message.settled as Promise<unknown> | undefined);
    inBackground(settled.then(() => dismiss(message.number), () => dismiss(message.number)), REPORTED_ALREADY);
    if (Date.parse(message.date) >= startedAt) return;
    const firstLine = String(message.source ?? '').split('\n')[0].slice(0, 80);
    inBackground(
      tell(
        `An evaluation I asked for before I was restarted still waits in your inbox (its code begins ${JSON.stringify(firstLine)}): nothing waits for its result any more. Reject it (endo reject with its number in your inbox) rather than approve it, which would run its code for nobody.`,
      ),
      REPORTED_ALREADY,
    );
  };

  const noteRequest = (message: InboxMessage, description: string) => {
    // A request of an earlier run has the title of this run's asking for the same call: its date tells them apart.
    const mine = Date.parse(message.date) >= startedAt ? ofThisRun.get(titleOf(description)) : undefined;
    if (mine !== undefined) {
      mine.number = message.number;
      if (mine.settled) inBackground(dismiss(message.number), REPORTED_ALREADY);
      return;
    }
    // Sent before a restart: nothing waits for it any more.
    const late = async () => {
      logger.event('approval-answered-late', { message: message.number });
      await tell(STALE_TEXT);
      await dismiss(message.number);
    };
    inBackground(Promise.resolve(message.settled as Promise<unknown> | undefined).then(late, late), error =>
      logger.warn('approval-late-answer-failed', { message: message.number, error }),
    );
  };

  return harden({
    /** February: a request of this run is sent; call the result once it is settled. */
    expect: (description: string) => {
      const copy: OwnCopy = { settled: false };
      ofThisRun.set(titleOf(description), copy);
      return () => {
        copy.settled = true;
        if (copy.number !== undefined) inBackground(dismiss(copy.number), REPORTED_ALREADY);
      };
    },
    /** For the inbox: an own copy; true when it is one of these (nothing else is told of it). */
    note: (message: InboxMessage): boolean => {
      if (message.type === 'eval-request') {
        hidden.set(message.number, true);
        noteEvalRequest(message);
        return true;
      }
      if (message.type === 'package' && messageText(message).startsWith(APPROVAL_HEADING)) {
        hidden.set(message.number, true);
        inBackground(dismiss(message.number), REPORTED_ALREADY);
        return true;
      }
      const description = typeof message.description === 'string' ? message.description : '';
      if (!description.startsWith(APPROVAL_HEADING) || (message.type !== 'form' && message.type !== 'request')) return false;
      hidden.set(message.number, true);
      if (message.type === 'request') noteRequest(message, description);
      return true;
    },
    hides: (number: bigint) => hidden.has(number),
  });
};
harden(makeOwnRequestCopies);

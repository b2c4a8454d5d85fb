// How an approval request reaches the host, where the host is: on May and
// August a form (host-forms.ts) with a decision and a reason field, which
// the Endo Chat UI shows; on February, which has no forms, a `request` to
// HOST whose description is the same text, answered with `endo resolve`
// (a value: see approval-decision.ts) or `endo reject` (a denial, its
// reason told to the model).
//
// An answer that comes after fae stopped waiting runs nothing: the host is
// told so. That holds across a restart too: a form answered after one goes
// to this kind of form (late answers, host-forms.ts); on February fae's
// own copy of a request from before the restart is watched until the host
// settles it (approval-own-copies.ts, which also hides every own copy of
// what fae asks its host from its tools).
import { E } from '@endo/far';
import type { DaemonAdapter } from '../../daemon/adapter.js';
import type { GuestPowers, Ref } from '../../daemon/endo-types.js';
import type { Logger } from '../../logging/log.js';
import type { FormField, FormKind, HostForms } from '../host/host-forms.js';
import { readAnswerValue } from './approval-decision.js';
import { APPROVAL_HEADING } from './approval-text.js';
import { STALE_TEXT, makeOwnRequestCopies, titleOf } from './approval-own-copies.js';

/** Said of a second answer to an approval request answered already. */
export const ANSWERED_TEXT = 'You had answered that approval request already; this second answer changes nothing.';
import { REPORTED_ALREADY, inBackground } from '../../background.js';

/** What the host answered: the decision as given, and a reason. */
export interface HostAnswer {
  readonly decision: unknown;
  readonly reason: string;
}

/** One request to the host. */
export interface Asked {
  /** The host's answer; rejects only when the request could not be made. */
  readonly answer: Promise<HostAnswer>;
  /** fae waits no more (`why`: "it timed out"); an answer still to come is told it ran nothing. */
  readonly stopWaiting: (why: string) => void;
}

const FIELDS = (asker: string): readonly FormField[] =>
  harden([
    { name: 'decision', label: `Decision: approve, deny, always for ${asker}, or always`, default: '', example: 'approve' },
    { name: 'reason', label: 'Reason (optional; the model is told)', default: '' },
  ]);

export const makeApprovalChannel = ({
  daemon,
  powers,
  forms,
  logger,
  tellHost,
  dismiss,
}: {
  readonly daemon: DaemonAdapter;
  readonly powers: Ref<GuestPowers>;
  readonly forms: HostForms;
  readonly logger: Logger;
  readonly tellHost: (text: string) => Promise<void>;
  readonly dismiss: (number: bigint) => Promise<boolean>;
}) => {
  const tell = (text: string) => tellHost(text).catch(error => logger.warn('host-report-failed', { kind: 'approval', error }));
  const copies = makeOwnRequestCopies({ dismiss, tell, logger });

  /** Sends the request; the answer, as values. */
  const send = (text: string, asker: string): Promise<HostAnswer> => {
    if (forms.available) {
      return forms.ask(text, FIELDS(asker)).answer.then(values =>
        harden({ decision: values.decision, reason: typeof values.reason === 'string' ? values.reason : '' }),
      );
    }
    const settle = copies.expect(text);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- request is on every generation's guest
    const asked = E(powers as any).request(daemon.names.host, text) as Promise<unknown>;
    return asked.then(
      value => {
        settle();
        return readAnswerValue(value);
      },
      (error: unknown) => {
        settle();
        const reason = error instanceof Error ? error.message : String(error);
        return harden({ decision: 'deny', reason: reason === 'Declined' ? '' : reason });
      },
    );
  };

  return harden({
    /** Mails the host `text`; `asker` is named in the decision field. */
    ask: (text: string, asker: string): Asked => {
      let stoppedWaiting: string | undefined;
      const answer = send(text, asker);
      void answer.then(
        () => {
          // tell logs its own failures.
          if (stoppedWaiting !== undefined) inBackground(tell(`Your answer to "${titleOf(text)}" came after I had stopped waiting (${stoppedWaiting}); nothing was run.`), REPORTED_ALREADY);
        },
        () => {},
      );
      return harden({
        answer,
        stopWaiting: (why: string) => {
          stoppedWaiting = why;
        },
      });
    },
    /** How the host answers, in the request's own words. */
    answering: (asker: string, tool: string) =>
      forms.available
        ? `Answer with the form's decision: approve; deny; "always for ${asker}" (from now on ${tool} needs no approval in ${asker}'s turns); or "always" (in everyone's). Anything else, or nothing, is a denial. A reason, if you give one, is passed on to the model.`
        : `Answer this request by its number in your inbox, N: endo resolve N SELF approves once; for a standing approval, endo store --text "always for ${asker}" (or "always") --name decision, then endo resolve N decision; endo reject N "reason" denies, the reason passed on to the model.`,
    /** How the host answers a request to hand something to `recipient`. */
    answeringGive: (recipient: string) =>
      forms.available
        ? `Answer with the form's decision: approve (this once); deny; or "always" (from now on what is named here may go to ${recipient} without asking you). Anything else, or nothing, is a denial. A reason, if you give one, is passed on to the model.`
        : `Answer this request by its number in your inbox, N: endo resolve N SELF approves once; to let what is named here go to ${recipient} from now on without asking, endo store --text always --name decision, then endo resolve N decision; endo reject N "reason" denies, the reason passed on to the model.`,
    /** For the inbox: fae's own copy of something it asked its host; true when it is one (nothing else is told of it). */
    noteOwn: copies.note,
    /** Whether a message is fae's own copy of an approval request or an evaluation (the tools never see one). */
    hides: copies.hides,
    /** Late answers to approval forms: after a restart, nothing waits for them. */
    kind: harden({
      recognizes: (description: string) => description.startsWith(APPROVAL_HEADING),
      onLateAnswer: async (_values, why) => {
        logger.event('approval-answered-late', { why });
        await tell(why === 'again' ? ANSWERED_TEXT : STALE_TEXT);
      },
    }) as FormKind,
  });
};
harden(makeApprovalChannel);
export type ApprovalChannel = ReturnType<typeof makeApprovalChannel>;

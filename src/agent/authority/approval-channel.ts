// How an approval request reaches the host, where the host is: on May and
// August the whole request as an ordinary message (markdown, which the
// Endo Chat UI renders) and then a form (host-forms.ts) whose description
// is the request's one-line title, with a decision and a reason field; on
// February, which has no forms, a `request` to HOST whose description is
// the whole text, answered with `endo resolve` (a value: see
// approval-decision.ts) or `endo reject` (a denial, its reason told to the
// model).
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
import { REPORTED_ALREADY, inBackground } from '../../background.js';

/** Said of a second answer to the approval request `title`, answered already. */
export const answeredText = (title: string) => `You had answered "${title}" already; this second answer changes nothing.`;

/** What the host answered: the decision as given, and a reason. */
export interface HostAnswer {
  readonly decision: unknown;
  readonly reason: string;
}

/** One request to the host. */
export interface Asked {
  /** The host's answer; rejects only when the request could not be made. */
  readonly answer: Promise<HostAnswer>;
  /**
   * fae waits no more (`why`: "it timed out"); an answer still to come is
   * told it ran nothing. `final`: no later turn takes the request up again
   * (it timed out), so the host is told at once.
   */
  readonly stopWaiting: (why: string, options: { final: boolean }) => void;
}

/**
 * What the host may answer: `always` says what a standing approval would
 * mean here ("from now on touch needs no approval in alice's turns"), and
 * is absent where none can be given (every evaluation is reviewed).
 */
export interface Choices {
  readonly always?: string;
}

/** The form's fields: the fewest choices that say it all, and a reason. */
const fieldsFor = ({ always }: Choices): readonly FormField[] =>
  harden([
    // No example: shown grey in the field, "approve" read as a choice already made, and an empty Submit denies.
    { name: 'decision', label: always === undefined ? 'approve or deny (type one)' : 'approve, deny or always (type one)', default: '' },
    { name: 'reason', label: 'Reason, if any (the model is told)', default: '' },
  ]);

/** How the host answers, in the words of the request. */
const answeringText = (available: boolean, { always }: Choices) => {
  if (available) {
    const choices =
      always === undefined ? 'approve (this once) or deny' : `approve (this once), deny, always (${always}) or "always for everyone"`;
    return [
      `Answer in the form that follows: ${choices}; yes and no do too. An answer I cannot read, or none, is a denial; a reason, if you give one, is passed on to the model.`,
      'From a terminal: `endo submit N -f decision:approve`, N being the form\'s number in your inbox (a form cannot be rejected: answer deny).',
    ].join('\n');
  }
  const standing = always === undefined ? '' : `; for always (${always}), \`endo store --text always --name decision\`, then \`endo resolve N decision\``;
  return `Answer this request by its number in your inbox, N: \`endo resolve N SELF\` approves once${standing}; \`endo reject N "reason"\` denies, the reason passed on to the model.`;
};

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

  /**
   * Sends the request; the answer, as values. A form's description is one
   * line, the title: the request whole goes first, as a message the host
   * reads as it is (the Endo Chat UI shows a form's description quoted).
   */
  const send = async (text: string, choices: Choices): Promise<HostAnswer> => {
    if (forms.available) {
      const title = titleOf(text);
      // The same request, sent before a restart and still unanswered, is taken up: one form per request.
      const reopened = await forms.reopen(title);
      if (reopened === undefined) await tellHost(text);
      const values = await (reopened ?? forms.ask(title, fieldsFor(choices))).answer;
      return harden({ decision: values.decision, reason: typeof values.reason === 'string' ? values.reason : '' });
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
    /** Mails the host `text` (approvalText's), offering `choices`. */
    ask: (text: string, choices: Choices): Asked => {
      let stoppedWaiting: string | undefined;
      const answer = send(text, choices);
      void answer.then(
        () => {
          // tell logs its own failures.
          if (stoppedWaiting !== undefined) inBackground(tell(`Your answer to "${titleOf(text)}" came after I had stopped waiting (${stoppedWaiting}); nothing was run.`), REPORTED_ALREADY);
        },
        () => {},
      );
      return harden({
        answer,
        stopWaiting: (why: string, { final }: { final: boolean }) => {
          stoppedWaiting = why;
          // A turn stopped with fae is taken up again after its restart, form and all: nothing to tell.
          if (!final) return;
          // The form stays in the host's inbox: it is told now that answering it changes nothing.
          inBackground(tell(`I stopped waiting for your answer to "${titleOf(text)}" (${why}): it counts as a denial, nothing was run, and an answer now changes nothing.`), REPORTED_ALREADY);
        },
      });
    },
    /** How the host answers, in the request's own words. */
    answering: (choices: Choices) => answeringText(forms.available, choices),
    /** For the inbox: fae's own copy of something it asked its host; true when it is one (nothing else is told of it). */
    noteOwn: copies.note,
    /** Whether a message is fae's own copy of an approval request or an evaluation (the tools never see one). */
    hides: copies.hides,
    /** Late answers to approval forms: after a restart, nothing waits for them. */
    kind: harden({
      recognizes: (description: string) => description.startsWith(APPROVAL_HEADING),
      onLateAnswer: async (_values, why, description) => {
        logger.event('approval-answered-late', { why });
        await tell(why === 'again' ? answeredText(titleOf(description)) : STALE_TEXT);
      },
    }) as FormKind,
  });
};
harden(makeApprovalChannel);
export type ApprovalChannel = ReturnType<typeof makeApprovalChannel>;

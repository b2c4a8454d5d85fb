// How a turn ends: fae's words for how the loop ended, sent by the
// progress reply where there is one or as a reply, then the turn stored
// and its message dismissed, or kept open to edits (editable-answers.ts).
import type { InboxMessage } from '../../daemon/adapter.js';
import type { OpenTurn } from '../../conversations/conversations.js';
import { asStrings } from './deliver.js';
import type { TurnProgress } from './progress-reply.js';
import type { TurnOutcome } from './turn.js';
import type { TurnState } from './turn-states.js';
import {
  cutOffNotice,
  emptyAnswerText,
  forgetFailedNotice,
  limitNotice,
  voiced,
  type Notice,
  type Subject,
} from './closing-notices.js';
import type { MessageTurnOptions } from './message-turn-options.js';

/** What a turn ends with. */
export interface Closing {
  /** The model's plain answer, or fae's own to a command. */
  readonly answer?: string;
  /** fae's own notices, each said in the voice of whoever reads it (closing-notices.ts). */
  readonly notices?: readonly Notice[];
  /** What fae says stands for the turn in its conversation: the model gave no answer. */
  readonly noted?: boolean;
  /** Charges what the turn's model calls cost and logs it, once the answer is out (message-turn.ts). */
  readonly charged?: () => void;
}

/** What closing a turn needs: its state, its conversation's turn, its progress, the answer it replaces. */
export interface Closer {
  readonly state: TurnState;
  readonly turn: OpenTurn | undefined;
  readonly progress: TurnProgress;
  readonly earlier: Promise<bigint | undefined> | undefined;
  /** Its message, and whether the host sent it. */
  readonly subject: Subject;
  /** Told once the answer is out (or none will be), before the turn is stored. */
  readonly onAnswered?: () => void;
}

/** An answer whose own copy is not known. */
const NO_COPY: Promise<bigint | undefined> = Promise.resolve(undefined);

/** What fae says to the sender: the answer, then each notice in the sender's voice. */
const wordsOf = (closing: Closing, notices: readonly Notice[], subject: Subject) => {
  const parts = [...(closing.answer === undefined ? [] : [closing.answer]), ...notices.map(notice => voiced(notice, subject))];
  return parts.length === 0 ? undefined : parts.join('\n\n');
};

export const makeTurnClosing = (options: MessageTurnOptions) => {
  const { config, logger, redact, events, reports } = options;

  /** fae's words for how the loop ended (none when the model answered by a tool). */
  const closingOf = (outcome: Exclude<TurnOutcome, { kind: 'cancelled' }>, state: TurnState, subject: Subject): Closing => {
    if (outcome.kind === 'limit') {
      logger.warn('turn-limit', { message: state.number, iterations: outcome.iterations });
      return { notices: [limitNotice(outcome.iterations, config.maxIterations, subject)], noted: true };
    }
    if (state.answered) return {};
    if (outcome.content.trim() !== '') {
      // The model answered in plain text: deliver it to the sender.
      return { answer: outcome.content, notices: outcome.cutOff ? [cutOffNotice(subject, options.hostWords)] : [] };
    }
    // Silence would leave the sender waiting forever.
    return { answer: emptyAnswerText(subject), noted: true };
  };

  /**
   * The answer goes out first: the sender waits for nothing else. Then
   * the turn is stored, and then the message dismissed (a dismissed
   * message can no longer be replied to). A restart between the answer
   * and the store replays the message, which fae's own copy of the answer
   * shows answered: the turn is kept from the two, and not answered again
   * (message-turn.ts); one between the store and the dismissal replays a
   * message fae finds stored, and does not answer again.
   */
  const close = async (message: InboxMessage, { state, turn, progress, earlier, subject, onAnswered }: Closer, closing: Closing) => {
    const notices = [
      ...(closing.notices ?? []),
      ...(state.forgetFailure === undefined ? [] : [forgetFailedNotice(state.forgetFailure, subject)]),
    ];
    const text = wordsOf(closing, notices, subject);
    let answer: Promise<bigint | undefined> | undefined;
    let replied = false;
    try {
      if (text === undefined) {
        await progress.answeredElsewhere();
      } else {
        const sent = await sendAnswer(message, progress, text);
        answer = sent?.copy;
        replied = sent?.replied ?? false;
        if (answer !== undefined) events.emit({ type: 'answered', message: message.number });
      }
    } finally {
      // What the turn cost is charged before fae reads on (inbox.ts).
      closing.charged?.();
      onAnswered?.();
    }
    // What the turn cost is written now, not before: its write would hold up the answer's.
    options.usage.save();
    const { editable } = options;
    // Kept open to its sender's edits for a while (editable-answers.ts), else dismissed as ever.
    const keep = answer !== undefined && editable !== undefined && config.autoDismiss && !state.dismissed;
    // Kept before the turn is stored: storing it releases the own copies it
    // links, and the answer's must not be dismissed while it can be edited.
    if (keep) editable.keep(message.number, options.threadOf(message), answer ?? NO_COPY, earlier);
    else if (earlier !== undefined) editable?.discard(earlier);
    // The host read the detail as its answer; anyone else's trouble is reported to it (host-reports.ts).
    const reported = Promise.all(notices.map(notice => (subject.fromHost ? reports.told(notice) : reports.report(notice))));
    // Stored before dismissed: a restart between the two replays the
    // message, which fae then finds stored and does not answer again; the
    // other way round, a restart between them lost the turn from its
    // conversation. (A store the daemon refuses is kept in memory and
    // tried again: finish does not wait for it.)
    // The link of the answer's own copy goes with the turn, where it can (open-turns.ts).
    await turn?.finish(closing.noted === true ? text : undefined, replied);
    // Handled messages are dismissed so a restart does not replay them.
    const dismissed = !keep && (config.autoDismiss || state.dismissed) ? await options.dismiss(message.number) : false;
    await reported;
    logger.event('message-done', { message: message.number, messageId: message.messageId });
    events.emit({ type: 'turn-done', message: message.number, messageId: message.messageId ?? '' });
    return dismissed ? 'dismissed' : 'answered';
  };

  /**
   * Sends fae's words: by the progress reply where there is one, else as
   * a reply. Resolves to fae's own copy of them (for a later edit; its
   * number may never be known) and whether they went as a new reply, or
   * undefined when they could not be sent.
   */
  const sendAnswer = async (message: InboxMessage, progress: TurnProgress, text: string) => {
    const strings = asStrings(redact(text));
    if (await progress.answer(strings)) return { copy: progress.copy() ?? NO_COPY, replied: false };
    const { messageId } = message;
    const copy =
      options.editable === undefined || messageId === undefined ? NO_COPY : options.copies.expect(messageId, strings.join(''));
    return (await options.deliver(message, text)) ? { copy, replied: true } : undefined;
  };

  return harden({ closingOf, close });
};
harden(makeTurnClosing);

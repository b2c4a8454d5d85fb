// src/agent/host/: the host's side: its forms, fae's LLM settings, the commands
// fae answers itself, reports of trouble and help.
// Imports: the layers below src/agent, and the rest of src/agent but fae.ts.
//
// Forms fae mails its host (May and August, next spec §3.1): its settings,
// and later approvals. The daemon's form() says nothing back, so fae learns
// a form's messageId from its own copy, which reaches its inbox before the
// host can have seen the form; forms are sent one at a time so each copy
// is matched with the form that made it. The host's answer is a `value`
// message replying to that messageId: fae takes it out of the inbox before
// any turn sees it, reads the values, and dismisses both the answer and
// its own copy of the form.
//
// What a host types into a form (a token) must not reach the model: the
// numbers of answers and the ids of their values are kept here, so that
// the built-ins' sealed view can hide those messages and refuse those ids
// (sealed-powers.ts).
//
// A form sent before a restart has no one waiting for it: its answer goes
// to the handler of the kind of form it is (recognised by its
// description), or is dismissed with a word to the host.
import { E } from '@endo/far';
import { makePromiseKit } from '@endo/promise-kit';
import type { GuestPowers, Ref } from '../../daemon/endo-types.js';
import type { DaemonAdapter, InboxMessage } from '../../daemon/adapter.js';
import type { Logger } from '../../logging/log.js';
import { unlessGivenUp } from '../../timeout.js';
import { makeRecentMap, type RecentMap } from '../../recent-map.js';
import { REPORTED_ALREADY, inBackground } from '../../background.js';

/** One field of a form, as the daemon and the Endo Chat UI take it. */
export interface FormField {
  readonly name: string;
  readonly label: string;
  readonly default?: string;
  readonly example?: string;
  readonly secret?: boolean;
}

export type FormValues = Readonly<Record<string, unknown>>;

/** A kind of form whose late answers (after a restart) fae still takes. */
export interface FormKind {
  /** Whether a form fae sent, by its description, is of this kind. */
  readonly recognizes: (description: string) => boolean;
  /**
   * An answer no one waits for: to a form sent before a restart
   * ('restarted'), or a second answer to one answered already ('again':
   * the Endo Chat UI lets a form be submitted again).
   */
  readonly onLateAnswer: (values: FormValues, why: 'restarted' | 'again', description: string) => Promise<void>;
}

export interface HostForms {
  /** Whether fae can send forms here (not on February). */
  readonly available: boolean;
  /**
   * Mails the host a form; resolves with the values of the host's answer.
   * `withdraw` gives up waiting: the answer, if one still comes, is
   * dismissed unread.
   */
  ask(description: string, fields: readonly FormField[]): { answer: Promise<FormValues>; withdraw: () => void };
  /** For the inbox: takes an answer to one of fae's forms (true), before any turn sees it. */
  take(message: InboxMessage): boolean;
  /** For the inbox: fae's own copy of a form it sent. */
  noteOwnForm(message: InboxMessage): void;
  /** Whether fae's inbox holds a form of this description it sent and has had no answer to. */
  hasOpenForm(description: string): Promise<boolean>;
  /**
   * A form of this description fae sent before it was restarted, still
   * unanswered: this run waits for its answer instead of sending another
   * (undefined when there is none).
   */
  reopen(description: string): Promise<{ answer: Promise<FormValues> } | undefined>;
  /** Whether a message is an answer to one of fae's forms (the built-ins never see one). */
  hidesMessage(number: bigint): boolean;
  /** Whether an id is the value of such an answer (the built-ins never reach one). */
  hidesId(id: string): boolean;
}

/** Forms, answers and values remembered, at most, each. */
const REMEMBERED = 256;

interface Sent {
  readonly description: string;
  readonly copyNumber: bigint;
  /** Given the answer's values; undefined once withdrawn, or for a form of an earlier run. */
  answer?: (values: FormValues) => void;
  /** It was answered already (a later answer changes nothing). */
  answered?: boolean;
  /** Sent by an earlier run of fae (a restart came between): only reopen takes it up. */
  readonly earlier?: boolean;
}

/** A form sent whose own copy has not come yet. */
interface Uncopied {
  readonly description: string;
  readonly answer: (values: FormValues) => void;
  /** Set when it is withdrawn. */
  withdrawn: boolean;
  /** What its own copy made of it, once that came. */
  sent?: Sent;
  /** Resolved once its own copy came. */
  readonly copied: () => void;
}

/** How long the next form waits for the copy of the one before. */
const COPY_WAIT_MS = 5_000;

/** Said of an answer to a form fae no longer knows. */
export const UNKNOWN_FORM_TEXT =
  'That answer is to a form of mine that no longer waits (answered already before I was restarted, or no longer mine to take); it changes nothing, and nothing was run.';

interface FormsContext {
  readonly powers: Ref<GuestPowers>;
  readonly daemon: DaemonAdapter;
  readonly logger: Logger;
  readonly dismiss: (number: bigint) => Promise<boolean>;
  readonly kinds: () => readonly FormKind[];
}

/** What the forms' parts share: the forms sent, those still without their own copy, what is hidden. */
interface FormsState {
  /** Forms fae sent, by messageId. */
  readonly sent: RecentMap<string, Sent>;
  /** Forms sent and waiting for their own copy, in the order sent. */
  readonly uncopied: Uncopied[];
  readonly hiddenNumbers: RecentMap<bigint, true>;
  readonly hiddenIds: RecentMap<string, true>;
}

/** Sends forms one at a time, and matches each with its own copy, which says its messageId. */
const makeFormSender = ({ powers, daemon, dismiss }: FormsContext, { sent, uncopied }: FormsState) => {
  // One form at a time, so that own copies come in the order of `uncopied`.
  let sending: Promise<unknown> = Promise.resolve();

  /**
   * Sends after the forms before it have their copies (or gave up on them:
   * a copy that never comes, where fae cannot tell its own mail, must not
   * hold back every later form).
   */
  const send = (waiting: Uncopied, fields: readonly FormField[], copied: Promise<void>) => {
    const sendOne = async () => {
      uncopied.push(waiting);
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- February's powers have no form()
      await E(powers as any).form(daemon.names.host, waiting.description, harden(fields.map(f => harden({ ...f })))).catch(
        (error: unknown) => {
          uncopied.splice(uncopied.indexOf(waiting), 1);
          throw error;
        },
      );
      await unlessGivenUp(copied, { timeoutMs: COPY_WAIT_MS, describe: () => 'no copy of the form came' }).catch(() => {});
    };
    const done = sending.then(sendOne, sendOne);
    sending = done.catch(() => undefined);
    return done;
  };

  const ask: HostForms['ask'] = (description, fields) => {
    const answered = makePromiseKit<FormValues>();
    const copy = makePromiseKit<void>();
    const waiting: Uncopied = { description, answer: answered.resolve, withdrawn: false, copied: copy.resolve };
    send(waiting, fields, copy.promise).catch(answered.reject);
    return harden({
      answer: answered.promise,
      withdraw: () => {
        waiting.withdrawn = true;
        // Its copy goes too, once it has come; an answer that still comes is dismissed unread.
        // The copy's promise only resolves; dismiss logs its own failures.
        inBackground(
          copy.promise.then(async () => {
            if (waiting.sent === undefined) return;
            waiting.sent.answer = undefined;
            await dismiss(waiting.sent.copyNumber);
          }),
          REPORTED_ALREADY,
        );
      },
    });
  };

  const noteOwnForm: HostForms['noteOwnForm'] = message => {
    const description = String(message.description ?? '');
    const index = uncopied.findIndex(waiting => waiting.description === description);
    const waiting = index < 0 ? undefined : uncopied.splice(index, 1)[0];
    if (message.messageId !== undefined && sent.get(message.messageId) === undefined) {
      const answer = waiting === undefined || waiting.withdrawn ? undefined : waiting.answer;
      const form: Sent = { description, copyNumber: message.number, answer, earlier: waiting === undefined };
      sent.set(message.messageId, form);
      if (waiting !== undefined) waiting.sent = form;
    }
    waiting?.copied();
  };
  return { ask, noteOwnForm };
};

/** Takes the answers to fae's forms out of the inbox: the host's read and handed on, anyone else's dismissed unread. */
const makeAnswerTaker = ({ powers, daemon, logger, dismiss, kinds }: FormsContext, { sent, hiddenNumbers, hiddenIds }: FormsState) => {
  const readAnswer = async (message: InboxMessage, form: Sent) => {
    const valueId = message.valueId as string;
    hiddenIds.set(valueId, true);
    try {
      const values = (await E(powers).lookupById(valueId)) as FormValues;
      // The first answer goes to who waits; a second one (the Endo Chat UI
      // lets a form be submitted again) to the kind of form, as a late one.
      const waiting = form.answer;
      const again = form.answered === true;
      form.answer = undefined;
      form.answered = true;
      if (waiting !== undefined) {
        waiting(values);
        return;
      }
      const kind = kinds().find(candidate => candidate.recognizes(form.description));
      if (kind === undefined) logger.event('form-answer-ignored', { message: message.number });
      else await kind.onLateAnswer(values, again ? 'again' : 'restarted', form.description);
    } catch (error) {
      logger.warn('form-answer-unread', { message: message.number, error });
    } finally {
      await Promise.all([dismiss(message.number), dismiss(form.copyNumber)]);
    }
  };

  const take: HostForms['take'] = message => {
    if (message.type !== 'value' || message.replyTo === undefined) return false;
    const form = sent.get(message.replyTo);
    hiddenNumbers.set(message.number, true);
    if (form === undefined) {
      // An answer to a form fae no longer knows: answered before it was restarted (its copy went
      // then), or another fae's. No one's message for the model; the host hears it changes nothing.
      logger.event('form-answer-unknown', { message: message.number });
      const told = daemon.isFromHost(message) ? daemon.send(daemon.names.host, [UNKNOWN_FORM_TEXT]) : Promise.resolve();
      inBackground(
        told.finally(() => dismiss(message.number)),
        error => logger.warn('form-answer-unknown-untold', { message: message.number, error }),
      );
      return true;
    }
    if (!daemon.isFromHost(message)) {
      // Only the host was asked; anyone else's answer is dismissed unread.
      logger.warn('form-answer-not-from-host', { message: message.number });
      inBackground(dismiss(message.number), REPORTED_ALREADY);
      return true;
    }
    inBackground(readAnswer(message, form), error => logger.warn('form-answer-unread', { message: message.number, error }));
    return true;
  };
  return take;
};

export const makeHostForms = (context: FormsContext): HostForms => {
  const { daemon, logger } = context;
  const available = daemon.dialect !== 'feb';
  const state: FormsState = {
    sent: makeRecentMap<string, Sent>(REMEMBERED),
    uncopied: [],
    hiddenNumbers: makeRecentMap<bigint, true>(REMEMBERED),
    hiddenIds: makeRecentMap<string, true>(REMEMBERED),
  };
  const { sent } = state;
  const { ask, noteOwnForm } = makeFormSender(context, state);
  /** fae's own copies of forms of this description in its inbox. */
  const ownForms = async (description: string) =>
    (await daemon.listMessages()).filter(
      message => message.type === 'form' && daemon.isOwnMessage(message) && message.description === description,
    );

  return harden({
    available,
    ask: (description, fields) => {
      if (!available) throw Error('this daemon has no forms');
      return ask(description, fields);
    },
    noteOwnForm,
    take: makeAnswerTaker(context, state),
    reopen: async description => {
      // The inbox says, its own copy perhaps not yet come with the replay (an answered form's copy is dismissed).
      const copy = (await ownForms(description)).find(message => message.messageId !== undefined);
      if (copy?.messageId === undefined) return undefined;
      if (sent.get(copy.messageId) === undefined) sent.set(copy.messageId, { description, copyNumber: copy.number, earlier: true });
      const form = sent.get(copy.messageId);
      if (form === undefined || form.earlier !== true || form.answer !== undefined || form.answered === true) return undefined;
      const answered = makePromiseKit<FormValues>();
      form.answer = answered.resolve;
      logger.event('form-reopened', { copy: form.copyNumber });
      return harden({ answer: answered.promise });
    },
    hasOpenForm: async description => (await ownForms(description)).length > 0,
    hidesMessage: number => state.hiddenNumbers.has(number),
    hidesId: id => state.hiddenIds.has(id),
  });
};
harden(makeHostForms);

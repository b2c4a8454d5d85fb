// What fae says when a turn ends without the model having answered, or
// when something the sender asked for could not be done, in two voices:
// the correspondent reads a short plain sentence naming its message by its
// first words (nothing of the host's setup: no URL, no setting, no error
// text); the host reads the operator's detail (what failed, where, the
// setting to change), as the answer when it sent the message itself, else
// as a report of its own (host-reports.ts).
import type { ProviderTrouble } from '../../../providers/errors.js';
import type { MessageRecord } from '../../daemon/endo-types.js';
import { messageText } from '../../daemon/message-format.js';
import type { Redact } from '../../logging/redact.js';

/** What a notice is about, for the once-per-kind reports to the host. */
export type NoticeKind = ProviderTrouble | 'limit' | 'forget' | 'cut-off';

/** One thing fae must say, in both voices. */
export interface Notice {
  readonly kind: NoticeKind;
  /** For a correspondent. */
  readonly plain: string;
  /** For the host. */
  readonly detailed: string;
}

/** The message a notice is about, and who reads it. */
export interface Subject {
  /** Its number in fae's inbox (the host can look it up there). */
  readonly number: bigint;
  /** fae's name for its sender. */
  readonly sender: string;
  /** Its first words, quoted, or undefined when it has none. */
  readonly about: string | undefined;
  /** The host sent it: the host's voice is the answer, and no report follows. */
  readonly fromHost: boolean;
}

/** Characters of a message's text that name it, about. */
const FIRST_WORDS_CHARS = 24;

/** The first words of `text`, quoted ("what is the weather…"); undefined when it has none. */
export const firstWords = (text: string): string | undefined => {
  // Word by word, only as far as they fit: a message may be long.
  const words = /\S+/g;
  const first = words.exec(text);
  if (first === null) return undefined;
  let kept = first[0].slice(0, FIRST_WORDS_CHARS);
  let more = kept.length < first[0].length;
  for (let next = words.exec(text); next !== null && !more; next = words.exec(text)) {
    if (kept.length + 1 + next[0].length > FIRST_WORDS_CHARS) more = true;
    else kept = `${kept} ${next[0]}`;
  }
  return `"${kept}${more ? '…' : ''}"`;
};
harden(firstWords);

/**
 * The subject of a turn's notices: its message, from `sender`. Its text is
 * redacted before it is cut, so that no secret passes cut in half; and
 * only when a notice names it, which few turns have (every turn makes a
 * subject). Frozen, not hardened: it stays fae's own, and hardening would
 * walk its getter, a function made for every turn.
 */
export const subjectOf = (message: MessageRecord, sender: string, fromHost: boolean, redact: Redact): Subject => {
  let about: { readonly words: string | undefined } | undefined;
  return Object.freeze({
    number: message.number,
    sender,
    get about() {
      about ??= { words: firstWords(redact(messageText(message))) };
      return about.words;
    },
    fromHost,
  });
};
harden(subjectOf);

/**
 * How the host's voice names the message: `the message "hi…" from alice`,
 * by its first words (a number of fae's own inbox is one no reader can
 * look up).
 */
const messageRef = ({ sender, about, fromHost }: Subject) => {
  if (fromHost) return about === undefined ? 'your message' : `your message ${about}`;
  return about === undefined ? `a message from ${sender}` : `the message ${about} from ${sender}`;
};

/** `text` ending as a sentence does, with one full stop at most. */
const asSentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/** How a correspondent's notice names its message, at its end. */
const aboutTail = ({ about }: Subject) => (about === undefined ? '' : ` (About ${about})`);

const PLAIN_TROUBLE: Readonly<Record<ProviderTrouble, string>> = harden({
  unreachable: "Sorry — I can't reach my language model right now; my host knows of this trouble.",
  refused: 'Sorry — my language model turned me away (it did not accept my key); my host knows of this trouble.',
  timeout: 'Sorry — my language model took too long to answer; my host knows of this trouble.',
  garbage: 'Sorry — my language model sent me something I could not read; my host knows of this trouble.',
  context: 'Sorry — that was more than my language model can read at once; please send something shorter. My host knows of this trouble.',
  failed: 'Sorry — something went wrong while I worked on your message; my host knows of this trouble.',
});

/** The turn failed: `reason` is the operator's text (already redacted). */
export const turnFailedNotice = (trouble: ProviderTrouble, reason: string, subject: Subject): Notice =>
  harden({
    kind: trouble,
    plain: `${PLAIN_TROUBLE[trouble]}${aboutTail(subject)}`,
    detailed: `${subject.fromHost ? 'Sorry, I' : 'I'} could not answer ${messageRef(subject)}: ${reason}`,
  });
harden(turnFailedNotice);

/** The turn reached FAE_MAX_ITERATIONS model calls. */
export const limitNotice = (iterations: number, maxIterations: number, subject: Subject): Notice =>
  harden({
    kind: 'limit',
    plain: `Sorry — I stopped before finishing: answering took more steps than I may take for one message. Please send a simpler or more specific request.${aboutTail(subject)}`,
    detailed: `I stopped working on ${messageRef(subject)} after ${iterations} model calls without finishing (the limit is FAE_MAX_ITERATIONS=${maxIterations}).${subject.fromHost ? ' Please send a simpler or more specific request.' : ''}`,
  });
harden(limitNotice);

/** forgetConversation failed: the sender must not believe they were forgotten. */
export const forgetFailedNotice = (reason: string, subject: Subject): Notice =>
  harden({
    kind: 'forget',
    plain: '(Note from fae: I could not forget our conversation, so I still remember it; my host knows of this trouble.)',
    detailed: subject.fromHost
      ? `(Note from fae: ${asSentence(reason)})`
      : `I could not forget a conversation as asked in ${messageRef(subject)}: ${asSentence(reason)}`,
  });
harden(forgetFailedNotice);

/** The model's answer stopped at LAL_MAX_TOKENS; `hostWords` names that setting as the host knows it. */
export const cutOffNotice = (subject: Subject, hostWords: (text: string) => string = text => text): Notice =>
  harden({
    kind: 'cut-off',
    plain: '(This answer was cut off at my length limit.)',
    detailed: subject.fromHost
      ? `(This answer was cut off at the output limit, ${hostWords('LAL_MAX_TOKENS')}.)`
      : `My answer to ${messageRef(subject)} was cut off at the output limit; raise ${hostWords('LAL_MAX_TOKENS')} if answers should be longer.`,
  });
harden(cutOffNotice);

/**
 * The model's final answer was empty and it had not replied by a tool:
 * nothing of the host's setup in it, so one voice for all, and no report.
 */
export const emptyAnswerText = (subject: Subject): string =>
  `I finished working on your message but have no answer to give (my language model's reply was empty). Please ask again, perhaps more specifically.${aboutTail(subject)}`;
harden(emptyAnswerText);

/** A notice in the voice of whoever sent the subject message. */
export const voiced = (notice: Notice, { fromHost }: Subject): string => (fromHost ? notice.detailed : notice.plain);
harden(voiced);

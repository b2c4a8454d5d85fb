// The host's decision on an approval request, read leniently: the words a
// person types into a form field or stores as a text (approve, yes, ok;
// deny, no; always, which is for whoever asked; always for <who>, naming
// them; always for everyone). Anything else, an empty field
// included, is a denial, and the model and the host are told why: a call
// runs only on a decision fae understood.
import { q } from '@endo/errors';

export type Decision =
  | { readonly kind: 'approve' }
  | { readonly kind: 'deny' }
  /** Approve, and from now on this tool needs no approval: for everyone, or only for whoever asked. */
  | { readonly kind: 'always'; readonly forAsker: boolean }
  /** Not understood: a denial, saying why. */
  | { readonly kind: 'unclear'; readonly why: string };

const APPROVE = new Set(['approve', 'approved', 'yes', 'y', 'ok', 'okay', 'allow', 'allowed', 'run', 'go', 'sure', 'once', 'approve once']);
const DENY = new Set(['deny', 'denied', 'no', 'n', 'refuse', 'refused', 'reject', 'rejected', 'decline', 'declined', 'stop']);
/** What "always for …" may say of whoever asked, besides their names. */
const ASKER = new Set(['this correspondent', 'the correspondent', 'them', 'him', 'her', 'it', 'me', 'the sender', 'this sender', 'sender', 'this one']);

/** The words fae understands, for the texts that ask for a decision. */
export const DECISION_WORDS = 'approve, deny, always (for whoever asked) or "always for everyone"';

/**
 * Reads `text`; `askerNames` are the names whoever asked goes by (their
 * pet names, and HOST for the host), which "always for <who>" must name.
 */
export const readDecision = (text: unknown, askerNames: readonly string[]): Decision => {
  if (typeof text !== 'string') return harden({ kind: 'unclear', why: `the decision was not a text but ${q(typeof text)}` });
  const words = text.trim().replace(/[.!]+$/, '').replace(/\s+/g, ' ').toLowerCase();
  if (words === '') return harden({ kind: 'unclear', why: 'no decision was given' });
  if (APPROVE.has(words)) return harden({ kind: 'approve' });
  if (DENY.has(words)) return harden({ kind: 'deny' });
  // The fewest words give the least: "always" is for whoever asked.
  if (words === 'always') return harden({ kind: 'always', forAsker: true });
  if (words === 'always for everyone' || words === 'always for all' || words === 'always for anyone') {
    return harden({ kind: 'always', forAsker: false });
  }
  const forWho = /^always for (.+)$/.exec(words);
  if (forWho !== null) {
    const who = forWho[1].replace(/^@/, '');
    const names = askerNames.map(name => name.toLowerCase().replace(/^@/, ''));
    if (ASKER.has(who) || names.includes(who)) return harden({ kind: 'always', forAsker: true });
    return harden({
      kind: 'unclear',
      why: `the decision names ${q(forWho[1])}, but ${askerNames[0] ?? 'someone else'} asked; a standing approval is given to whoever asked ("always") or to everyone ("always for everyone")`,
    });
  }
  return harden({ kind: 'unclear', why: `${q(text.trim())} is not a decision fae understands, which is one of ${DECISION_WORDS}` });
};
harden(readDecision);

/**
 * The decision in a value the host answered a February request with: a
 * text is read as above; a record `{ decision, reason }` likewise, with its
 * reason; any other value (the daemon's `resolve` needs one) approves once.
 */
export const readAnswerValue = (value: unknown): { readonly decision: unknown; readonly reason: string } => {
  if (typeof value === 'string') return harden({ decision: value, reason: '' });
  if (typeof value === 'object' && value !== null && 'decision' in value) {
    const { decision, reason } = value as { decision: unknown; reason?: unknown };
    return harden({ decision, reason: typeof reason === 'string' ? reason : '' });
  }
  return harden({ decision: 'approve', reason: '' });
};
harden(readAnswerValue);

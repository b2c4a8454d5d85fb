// How /inbox shows the conversation: one entry per message, long ones cut
// to their start with a note saying how to see them whole (/inbox N), so a
// file fae pasted does not scroll the rest of the conversation away.
import type { MailView } from './mail-feed.js';

/** Characters of one message /inbox shows before cutting it. */
export const INBOX_PREVIEW_CHARS = 300;
/** Lines of one message /inbox shows before cutting it. */
export const INBOX_PREVIEW_LINES = 6;

const label = ({ number, from, to }: MailView) => (from === 'you' ? `#${number} you → ${to}` : `#${number} ${from}`);

const preview = (text: string): { shown: string; cut: boolean } => {
  const lines = text.split('\n');
  let shown = lines.slice(0, INBOX_PREVIEW_LINES).join('\n');
  if (shown.length > INBOX_PREVIEW_CHARS) shown = shown.slice(0, INBOX_PREVIEW_CHARS);
  return { shown, cut: shown.length < text.length };
};

/** One entry of /inbox, cut when long. */
export const describeMailShort = (mail: MailView): string => {
  const { shown, cut } = preview(mail.text);
  if (!cut) return `${label(mail)}: ${mail.text}`;
  const more = mail.text.length - shown.length;
  return `${label(mail)}: ${shown}… (${more} more characters; /inbox ${mail.number} shows it whole)`;
};
harden(describeMailShort);

/** What /inbox shows: every message, or message `number` whole. */
export const describeInbox = (mail: readonly MailView[], number?: bigint): string => {
  if (number === undefined) {
    return mail.length === 0 ? '(your inbox is empty)' : mail.map(describeMailShort).join('\n');
  }
  const one = mail.find(m => m.number === number);
  if (one === undefined) {
    const numbers = mail.map(m => `#${m.number}`).join(', ');
    return `There is no message #${number} in your inbox${numbers === '' ? '' : ` (it holds ${numbers})`}`;
  }
  return `${label(one)}: ${one.text}`;
};
harden(describeInbox);

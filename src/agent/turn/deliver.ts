// fae's own words to a sender (a plain-text answer, an apology for a failed
// turn, the iteration-cap notice) must arrive whatever happened to the
// message meanwhile. They go by reply; when the daemon refuses that (the
// message was dismissed, or its number is unknown), they go by send to the
// sender's pet name, if fae has one. A notice that cannot be delivered
// either way is logged, never thrown: the next message still gets served.
// The sender's names come through the daemon adapter: `from` is a raw id on
// February but a locator later, which reverseIdentify does not know.
import type { DaemonAdapter } from '../../daemon/adapter.js';
import type { MessageRecord } from '../../daemon/endo-types.js';
import type { Logger } from '../../logging/log.js';
import type { Redact } from '../../logging/redact.js';
import type { SenderNames } from '../authority/sender-names.js';

// A daemon refuses any one string longer than 100,000 characters (the
// default limit of its interface guards); a longer answer travels as
// several strings, which the recipient reads as one text.
const MAX_STRING_CHARS = 50_000;

/** A text as strings the daemon takes, in order. */
export const asStrings = (text: string): string[] => {
  const strings: string[] = [];
  for (let start = 0; start < text.length; start += MAX_STRING_CHARS) {
    strings.push(text.slice(start, start + MAX_STRING_CHARS));
  }
  return strings.length === 0 ? [''] : strings;
};

export type Deliver = (message: MessageRecord, text: string) => Promise<boolean>;

export const makeDeliver = (
  daemonAdapter: DaemonAdapter | Promise<DaemonAdapter>,
  logger: Logger,
  redact: Redact,
  /** The sender's names; by default asked of the daemon each time. */
  senderNames?: SenderNames,
): Deliver => {
  const byName = async (message: MessageRecord, text: string) => {
    // No adapter means no daemon to send through: the notice is lost, not thrown.
    const daemon = await Promise.resolve(daemonAdapter).catch(() => undefined);
    if (daemon === undefined) return false;
    const names = await (senderNames ?? daemon.senderNames)(message.from).catch(() => harden([] as string[]));
    const name = names[0];
    if (name === undefined) return false;
    try {
      await daemon.send(name, asStrings(text));
      logger.event('reply-sent', { message: message.number, by: 'send' });
      return true;
    } catch (error) {
      logger.warn('send-failed', { message: message.number, error });
      return false;
    }
  };
  const deliver = async (message: MessageRecord, said: string) => {
    // The model may repeat a secret it saw in a tool result; mail never carries one.
    // All outgoing mail is redacted string by string (redacted-mail.ts); a long
    // text is redacted whole first, so no secret escapes by being cut in two.
    const text = redact(said);
    try {
      await (await daemonAdapter).reply(message.number, asStrings(text));
      logger.event('reply-sent', { message: message.number });
      return true;
    } catch (error) {
      logger.warn('reply-failed', { message: message.number, error });
    }
    const sent = await byName(message, text);
    if (!sent) logger.warn('notice-lost', { message: message.number });
    return sent;
  };
  return harden(deliver);
};
harden(makeDeliver);

// What the setup tests read of the host's inbox, and how their loopback
// models answer: each model call is answered "<model> answers <word>" for
// the word (first, second, …) of the message it was asked about, so an
// answer tells which model answered which message.
import { E } from '@endo/far';
import { formulaIdOf } from '../../src/daemon/dialect.js';
import { type MessageRecord, fromSelf, messageText, nextMessage } from './daemon.js';
import type { LlmServer, RecordedRequest } from './llm-server.js';

// `any`: the daemon's objects are remote references.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

/** The text of the last user turn of a chat request. */
export const lastUserText = (request: RecordedRequest): string => {
  const users = (request.body.messages as { role: string; content: unknown }[]).filter(m => m.role === 'user');
  return JSON.stringify(users.at(-1)?.content ?? '');
};

/** Every model call is answered "<model> answers <word>" for the word it was asked. */
export const answerByWord = (llm: LlmServer, model: string) =>
  llm.otherwise(request => {
    const word = /\b(first|second|third|fourth)\b/.exec(lastUserText(request))?.[1] ?? 'something';
    return { text: `${model} answers ${word}` };
  });

/**
 * Whether a message reached the host from someone else than itself, or,
 * given `sender` (a pet name of the host's), from that one.
 */
const fromWhom = (host: Far, sender?: string) => {
  if (sender === undefined) return fromSelf(host);
  const senderId = E(host).identify(sender) as Promise<string>;
  return async (record: MessageRecord) => formulaIdOf(record.from) === (await senderId);
};

/** The next message from others (or from `sender`) that starts with `text`. */
export const waitFor = async (host: Far, text: string, sender?: string) => {
  const from = fromWhom(host, sender);
  return nextMessage(host, async record => (await from(record)) && messageText(record).startsWith(text), 10_000);
};

/** How many messages starting with this text reached the host from others (or from `sender`). */
export const countFrom = async (host: Far, text: string, sender?: string) => {
  const from = fromWhom(host, sender);
  const records = (await E(host).listMessages()) as MessageRecord[];
  const matches = await Promise.all(records.map(async r => (await from(r)) && messageText(r).startsWith(text)));
  return matches.filter(Boolean).length;
};

// How an incoming message is shown to the model. A package reads as its
// text with each attachment written "@edge-name" where it stands; other
// kinds (requests, forms, proposals) are described by type and content
// rather than hidden behind a placeholder (upstream F16).
import type { MessageRecord } from './endo-types.js';

/** The text of a package: strings interleaved with @edge-names. */
const packageText = (strings: readonly string[], names: readonly string[]) => {
  const parts: string[] = [];
  const count = Math.max(strings.length, names.length);
  for (let i = 0; i < count; i += 1) {
    if (i < strings.length) parts.push(strings[i]);
    if (i < names.length) parts.push(`@${names[i]}`);
  }
  return parts.join('');
};

// Fields every record has, or that carry no meaning for the model.
const PLUMBING = new Set([
  'number', 'type', 'from', 'to', 'date', 'messageId', 'replyTo',
  'dismissed', 'dismisser', 'settled', 'promiseId', 'resolverId', 'ids',
  'responder', 'result', 'resultId',
]);

const renderField = (value: unknown): string | undefined => {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'bigint') return `${value}`;
  if (Array.isArray(value) || (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype)) {
    try {
      return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}` : v));
    } catch {
      return undefined;
    }
  }
  return undefined; // promises, remotables: nothing readable
};

/** A short readable rendering of any message's content. */
export const messageText = (message: MessageRecord): string => {
  if (message.type === 'package') {
    return packageText(message.strings ?? [], message.names ?? []);
  }
  if (message.type === 'request' && typeof message.description === 'string') {
    return message.description;
  }
  return Object.entries(message)
    .filter(([key]) => !PLUMBING.has(key))
    .map(([key, value]) => [key, renderField(value)] as const)
    .filter(([, text]) => text !== undefined)
    .map(([key, text]) => `${key}: ${text}`)
    .join('; ');
};
harden(messageText);

/** The user turn for one incoming message. */
export const formatIncomingMessage = (message: MessageRecord, sender: string): string => {
  const head = `Message #${message.number} from ${sender}`;
  const text = messageText(message);
  switch (message.type) {
    case 'package':
      return `${head}: ${text}`;
    case 'request':
      return `${head} is a request (type "request"), asking: ${text}\nAnswer it with resolve (giving something from your directory) or reject.`;
    default:
      return `${head} is of type ${JSON.stringify(message.type)}${text ? `: ${text}` : ' with no readable content'}.`;
  }
};
harden(formatIncomingMessage);

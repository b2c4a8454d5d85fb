// The MAIL hub (spec §4.4): a read-only directory whose names are the
// current message numbers; each opens a read-only message hub with FROM,
// TO, DATE, TYPE, MESSAGE, REPLY?, then DESCRIPTION/PROMISE/RESOLVER for a
// request or STRINGS and the edge names for a package.
import type { Hub, Kernel } from './kernel.js';
import type { Mailbox, MessageRecord } from './mailbox-state.js';
import { q } from '@endo/errors';

const notAllowed = (): never => {
  throw Error('not allowed');
};

const readOnly = {
  write: notAllowed,
  remove: notAllowed,
  rename: notAllowed,
};

const unknownName = (name: string) => TypeError(`Unknown pet name: ${q(name)}`);

/** Id-valued and data-valued names of one message. */
const messageEntries = (record: MessageRecord): Array<[string, { id?: string; data?: unknown }]> => {
  const entries: Array<[string, { id?: string; data?: unknown }]> = [
    ['FROM', { id: record.from }],
    ['TO', { id: record.to }],
    ['DATE', { data: record.date }],
    ['TYPE', { data: record.type }],
    ['MESSAGE', { data: record.messageId }],
  ];
  if (record.replyTo !== undefined) entries.push(['REPLY', { data: record.replyTo }]);
  if (record.type === 'request') {
    entries.push(['DESCRIPTION', { data: record.description }]);
    entries.push(['PROMISE', { id: record.promiseId as string }]);
    entries.push(['RESOLVER', { id: record.resolverId as string }]);
  } else {
    entries.push(['STRINGS', { data: record.strings }]);
    const names = record.names as string[];
    const ids = record.ids as string[];
    // If an edge name occurs twice, the last occurrence wins.
    names.forEach((name, index) => entries.push([name, { id: ids[index] }]));
  }
  return entries;
};

export const makeMessageHub = (kernel: Kernel, record: MessageRecord): Hub => {
  const entries = new Map(messageEntries(record));
  const entry = (name: string) => {
    const found = entries.get(name);
    if (found === undefined) throw unknownName(name);
    return found;
  };
  return harden({
    has: (name: string) => entries.has(name),
    identify: (name: string) => entries.get(name)?.id,
    lookup: (name: string) => {
      const { id, data } = entry(name);
      return id === undefined ? data : kernel.provide(id);
    },
    list: () => [...entries.keys()],
    reverseIdentify: (id: string) =>
      [...entries].filter(([, value]) => value.id === id).map(([name]) => name),
    ...readOnly,
  });
};
harden(makeMessageHub);

/**
 * @param makeHubExo gives a far face to a message hub
 */
export const makeMailHub = (
  mailbox: Mailbox,
  openMessage: (record: MessageRecord) => unknown,
): Hub => {
  const find = (name: string) => {
    if (!/^\d+$/.test(name)) return undefined;
    return mailbox.get(BigInt(name));
  };
  return harden({
    has: (name: string) => find(name) !== undefined,
    // Messages are not formulas here, so a message has no id of its own.
    identify: () => undefined,
    lookup: (name: string) => {
      const record = find(name);
      if (record === undefined) throw unknownName(name);
      if (record.type !== 'package' && record.type !== 'request') {
        throw Error(`Message ${q(name)} is neither a package nor a request`);
      }
      return openMessage(record);
    },
    list: () => mailbox.list().map(record => String(record.number)),
    reverseIdentify: () => [],
    ...readOnly,
  });
};
harden(makeMailHub);

// The MAIL hub (spec §4.4; `@mail`, next spec §3.5): a read-only directory
// whose names are the current message numbers; each opens a read-only
// message hub with FROM, TO, DATE, TYPE, MESSAGE, REPLY?, then
// DESCRIPTION/PROMISE/RESOLVER for a request or STRINGS and the edge names
// for a package (`@from`, `@to`, ... after February); after February also
// `@description` for a form and `@value` for a value.
import type { Hub, Kernel } from '../kernel/kernel.js';
import type { Mailbox, MessageRecord } from './mailbox-state.js';
import { q } from '@endo/errors';

/** February says "not allowed"; later generations name the mailbox. */
const readOnlyFor = (kernel: Kernel) => {
  const refuse = (): never => {
    throw Error(kernel.dialect === 'feb' ? 'not allowed' : 'Mailbox directory is read-only');
  };
  return { write: refuse, remove: refuse, rename: refuse };
};

/** A field's name: `FROM` in February, `@from` later. */
const fieldNamer = (kernel: Kernel) => (name: string) =>
  kernel.dialect === 'feb' ? name : `@${name.toLowerCase()}`;

const unknownName = (name: string) => TypeError(`Unknown pet name: ${q(name)}`);

/** Id-valued and data-valued names of one message. */
const messageEntries = (
  record: MessageRecord,
  field: (name: string) => string,
): Array<[string, { id?: string; data?: unknown }]> => {
  const entries: Array<[string, { id?: string; data?: unknown }]> = [
    [field('FROM'), { id: record.from }],
    [field('TO'), { id: record.to }],
    [field('DATE'), { data: record.date }],
    [field('TYPE'), { data: record.type }],
    [field('MESSAGE'), { data: record.messageId }],
  ];
  if (record.replyTo !== undefined) entries.push([field('REPLY'), { data: record.replyTo }]);
  if (record.type === 'request') {
    entries.push([field('DESCRIPTION'), { data: record.description }]);
    entries.push([field('PROMISE'), { id: record.promiseId as string }]);
    entries.push([field('RESOLVER'), { id: record.resolverId as string }]);
  } else if (record.type === 'form') {
    entries.push([field('DESCRIPTION'), { data: record.description }]);
  } else if (record.type === 'value') {
    entries.push([field('VALUE'), { id: record.valueId as string }]);
  } else {
    entries.push([field('STRINGS'), { data: record.strings }]);
    const names = record.names as string[];
    const ids = record.ids as string[];
    // If an edge name occurs twice, the last occurrence wins.
    names.forEach((name, index) => entries.push([name, { id: ids[index] }]));
  }
  return entries;
};

export const makeMessageHub = (kernel: Kernel, record: MessageRecord): Hub => {
  const entries = new Map(messageEntries(record, fieldNamer(kernel)));
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
    ...readOnlyFor(kernel),
  });
};
harden(makeMessageHub);

/**
 * @param makeHubExo gives a far face to a message hub
 */
export const makeMailHub = (
  kernel: Kernel,
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
      if (!['package', 'request', 'form', 'value'].includes(record.type)) {
        throw Error(`Message ${q(name)} is neither a package nor a request`);
      }
      return openMessage(record);
    },
    list: () => mailbox.list().map(record => String(record.number)),
    reverseIdentify: () => [],
    ...readOnlyFor(kernel),
  });
};
harden(makeMailHub);

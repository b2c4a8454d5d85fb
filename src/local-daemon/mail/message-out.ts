// How a stored message record leaves the daemon (next spec §2, §3.1): on
// May and August, `from`, `to`, `ids` and `promiseId` become locators
// without hints (`valueId` and `resolverId` stay raw ids); August records
// also carry `done`. February hands records out as stored.
import type { Kernel } from '../kernel/kernel.js';
import type { MessageRecord } from './mailbox-state.js';
import { formatLocator } from '../names/locators.js';

export type Externalize = (record: MessageRecord) => MessageRecord;

export const makeExternalize = (kernel: Kernel): Externalize => {
  const { dialect } = kernel;
  if (dialect === 'feb') return record => record;
  const locate = (id: string, fallback: string) =>
    formatLocator(dialect, id, kernel.formulas.get(id)?.type ?? fallback);
  return record => {
    const ids = record.ids as readonly string[] | undefined;
    const promiseId = record.promiseId as string | undefined;
    return harden({
      ...record,
      from: locate(record.from, 'handle'),
      to: locate(record.to, 'handle'),
      ...(ids === undefined ? {} : { ids: ids.map(id => locate(id, 'remote')) }),
      ...(promiseId === undefined ? {} : { promiseId: locate(promiseId, 'promise') }),
      ...(dialect === 'aug' ? { done: record.done ?? true } : {}),
    });
  };
};
harden(makeExternalize);

/** An iterator that maps another lazily, as it is pulled. */
export const mapIterator = <T, U>(iterator: Iterator<T>, map: (item: T) => U): Iterator<U> => ({
  next: () => {
    const step = iterator.next();
    return step.done ? { done: true, value: undefined } : { done: false, value: map(step.value) };
  },
});
harden(mapIterator);

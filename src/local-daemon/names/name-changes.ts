// followNameChanges and followLocatorNameChanges (spec §4.2; next spec §4):
// sources for follow.ts over a hub's special names and pet store.
// followNameChanges replays one add per special name, then per pet name,
// each sorted, then follows the store. Items are
// `{ add: name, value: { number, node } }` (May and August add `id`;
// August also `type`) or `{ remove: name }`.
// followLocatorNameChanges first gives every name of one formula,
// `{ add: locator, names }`, then `{ add | remove: locator, names: [name] }`.
import type { Kernel } from '../kernel/kernel.js';
import type { NameFeed, StoreChange } from './pet-store.js';
import type { FollowSource } from '../follow/follow.js';

export type NameChange =
  | { readonly add: string; readonly value: object; readonly type?: string }
  | { readonly remove: string };

/** The value record of an add: the daemon's parsed id. */
const idRecord = (kernel: Kernel, id: string) => {
  const [number, node] = id.split(':');
  return kernel.dialect === 'feb' ? harden({ number, node }) : harden({ number, node, id });
};

const addOf = (kernel: Kernel, name: string, id: string): NameChange => {
  const type = kernel.dialect === 'aug' ? kernel.formulas.get(id)?.type : undefined;
  return harden({ add: name, value: idRecord(kernel, id), ...(type === undefined ? {} : { type }) });
};

export const nameChangesSource = (kernel: Kernel, feed: NameFeed): FollowSource<NameChange> =>
  harden({
    start: (push: (item: NameChange) => void) => {
      const stop = feed.store.subscribe((change: StoreChange) =>
        push('add' in change ? addOf(kernel, change.add, change.id) : harden({ remove: change.remove })),
      );
      const specials = Object.keys(feed.specials).sort();
      const current = [
        ...specials.map(name => [name, feed.specials[name]] as const),
        ...feed.store.list().map(name => [name, feed.store.identify(name) as string] as const),
      ];
      const replay = current.map(([name, id]) => addOf(kernel, name, id))[Symbol.iterator]();
      return { replay, stop };
    },
  });
harden(nameChangesSource);

export interface LocatorNameChange {
  readonly add?: string;
  readonly remove?: string;
  readonly names: readonly string[];
}

export const locatorNameChangesSource = (
  feed: NameFeed,
  locator: string,
  id: string,
  selfName: string,
  hostName: string,
): FollowSource<LocatorNameChange> =>
  harden({
    start: (push: (item: LocatorNameChange) => void) => {
      const stop = feed.store.subscribe((change: StoreChange) => {
        if (change.id !== id) return;
        push(
          'add' in change
            ? harden({ add: locator, names: [change.add] })
            : harden({ remove: locator, names: [change.remove] }),
        );
      });
      let specials = Object.keys(feed.specials).filter(name => feed.specials[name] === id);
      // The root host is its own host: the daemon names it only as itself.
      if (specials.includes(selfName)) specials = specials.filter(name => name !== hostName);
      const names = [...specials, ...feed.store.reverseIdentify(id)].sort();
      return { replay: [harden({ add: locator, names })][Symbol.iterator](), stop };
    },
  });
harden(locatorNameChangesSource);

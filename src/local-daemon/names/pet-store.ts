// A pet store: names bound to formula ids. Binding order is kept because
// reverseIdentify reports names in the order they were bound. Changes are
// published as the daemon's pet store publishes them: a new binding is an
// add; replacing a binding is a remove then an add; rebinding a name to
// the id it already has publishes nothing; a rename over an existing name
// removes the overwritten name, then the old one, then adds the new one.
import { q } from '@endo/errors';

export type StoreChange =
  | { readonly add: string; readonly id: string }
  | { readonly remove: string; readonly id: string };

export interface PetStore {
  has(name: string): boolean;
  identify(name: string): string | undefined;
  /** Pet names, sorted. */
  list(): string[];
  /** Calls `visit` with every bound id (with repeats), for reachability. */
  forEachId(visit: (id: string) => void): void;
  reverseIdentify(id: string): string[];
  /** Binds silently, replacing any previous binding. */
  write(name: string, id: string): void;
  remove(name: string): void;
  rename(from: string, to: string): void;
  /** Tells `listener` every later change; returns the unsubscriber. */
  subscribe(listener: (change: StoreChange) => void): () => void;
}

/** What a hub can be followed by: its special names over its pet store. */
export interface NameFeed {
  readonly specials: Readonly<Record<string, string>>;
  readonly store: PetStore;
}

export const makePetStore = (onChange: () => void): PetStore => {
  const bindings = new Map<string, string>();
  const listeners = new Set<(change: StoreChange) => void>();

  const publish = (change: StoreChange) => {
    for (const listener of [...listeners]) listener(harden(change));
  };

  const write = (name: string, id: string) => {
    const previous = bindings.get(name);
    // Delete first so that the name moves to the end of the binding order.
    bindings.delete(name);
    bindings.set(name, id);
    onChange();
    if (previous === id) return;
    if (previous !== undefined) publish({ remove: name, id: previous });
    publish({ add: name, id });
  };
  const remove = (name: string) => {
    const id = bindings.get(name);
    if (id === undefined) {
      throw Error(`Formula does not exist for pet name ${q(name)}`);
    }
    bindings.delete(name);
    onChange();
    publish({ remove: name, id });
  };
  const rename = (from: string, to: string) => {
    const id = bindings.get(from);
    if (id === undefined) {
      throw Error(`Formula does not exist for pet name ${q(from)}`);
    }
    if (from === to) return;
    const overwritten = bindings.get(to);
    bindings.delete(from);
    bindings.delete(to);
    bindings.set(to, id);
    onChange();
    if (overwritten !== undefined) publish({ remove: to, id: overwritten });
    publish({ remove: from, id });
    publish({ add: to, id });
  };

  return harden({
    has: name => bindings.has(name),
    identify: name => bindings.get(name),
    list: () => [...bindings.keys()].sort(),
    forEachId: (visit: (id: string) => void) => bindings.forEach(id => visit(id)),
    reverseIdentify: id =>
      [...bindings.entries()].filter(([, bound]) => bound === id).map(([name]) => name),
    write,
    remove,
    rename,
    subscribe: listener => {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  });
};
harden(makePetStore);

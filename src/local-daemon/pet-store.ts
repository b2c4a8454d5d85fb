// A pet store: names bound to formula ids. Binding order is kept because
// reverseIdentify reports names in the order they were bound.
import { q } from '@endo/errors';

export interface PetStore {
  has(name: string): boolean;
  identify(name: string): string | undefined;
  /** Pet names, sorted. */
  list(): string[];
  /** Every bound id (with repeats), for reachability. */
  ids(): string[];
  reverseIdentify(id: string): string[];
  /** Binds silently, replacing any previous binding. */
  write(name: string, id: string): void;
  remove(name: string): void;
  rename(from: string, to: string): void;
}

export const makePetStore = (onChange: () => void): PetStore => {
  const bindings = new Map<string, string>();

  const write = (name: string, id: string) => {
    // Delete first so that the name moves to the end of the binding order.
    bindings.delete(name);
    bindings.set(name, id);
    onChange();
  };
  const remove = (name: string) => {
    if (!bindings.delete(name)) {
      throw Error(`Formula does not exist for pet name ${q(name)}`);
    }
    onChange();
  };
  const rename = (from: string, to: string) => {
    const id = bindings.get(from);
    if (id === undefined) {
      throw Error(`Formula does not exist for pet name ${q(from)}`);
    }
    if (from === to) return;
    bindings.delete(from);
    write(to, id);
  };

  return harden({
    has: name => bindings.has(name),
    identify: name => bindings.get(name),
    list: () => [...bindings.keys()].sort(),
    ids: () => [...bindings.values()],
    reverseIdentify: id =>
      [...bindings.entries()].filter(([, bound]) => bound === id).map(([name]) => name),
    write,
    remove,
    rename,
  });
};
harden(makePetStore);

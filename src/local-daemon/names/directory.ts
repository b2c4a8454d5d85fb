// Name operations over a root hub (spec §4.2): the same code serves an
// agent's own names (root = its pet sitter) and a plain directory (root =
// its pet store). Paths walk from hub to hub; a value the kernel does not
// know as a hub is asked through E(), as the daemon would.
import { E } from '@endo/far';
import { q } from '@endo/errors';
import type { Hub, Kernel } from '../kernel/kernel.js';
import { assertValidId } from '../kernel/ids.js';
import { formatLocator, idFromLocator } from './locators.js';
import type { FollowOut } from '../follow/far-follower.js';
import { locatorNameChangesSource, nameChangesSource } from './name-changes.js';
import type { NameFeed } from './pet-store.js';

type NameOrPath = string | readonly string[];

/** Adapts a value that is not one of ours to the hub protocol. */
const makeRemoteHub = (value: unknown, bindMethod: 'write' | 'storeIdentifier'): Hub => {
  // `any`: the value is a remote reference of unknown shape.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const target = value as any;
  return harden({
    has: (name: string) => E(target).has(name) as Promise<boolean>,
    identify: (name: string) => E(target).identify(name) as Promise<string | undefined>,
    lookup: (name: string) => E(target).lookup(name),
    list: () => E(target).list() as Promise<string[]>,
    reverseIdentify: (id: string) => E(target).reverseIdentify(id) as Promise<string[]>,
    write: (name: string, id: string) => E(target)[bindMethod](name, id) as Promise<void>,
    remove: (name: string) => E(target).remove(name) as Promise<void>,
    rename: (from: string, to: string) => E(target).move([from], [to]) as Promise<void>,
  });
};

export interface DirectoryOps {
  has(...path: string[]): Promise<boolean>;
  identify(...path: string[]): Promise<string | undefined>;
  reverseIdentify(id: string): Promise<string[]>;
  locate(...path: string[]): Promise<string | undefined>;
  reverseLocate(locator: string): Promise<string[]>;
  followNameChanges(): Promise<object>;
  followLocatorNameChanges(locator: string): Promise<object>;
  list(...path: string[]): Promise<string[]>;
  listIdentifiers(...path: string[]): Promise<string[]>;
  lookup(nameOrPath: NameOrPath): Promise<unknown>;
  reverseLookup(value: unknown): Promise<string[]>;
  write(nameOrPath: NameOrPath, id: string): Promise<void>;
  remove(...path: string[]): Promise<void>;
  move(fromPath: readonly string[], toPath: readonly string[]): Promise<void>;
  copy(fromPath: readonly string[], toPath: readonly string[]): Promise<void>;
  makeDirectory(nameOrPath: NameOrPath): Promise<unknown>;
  /** Identifies a whole path, undefined if the last name is unbound. */
  identifyPath(path: readonly string[]): Promise<string | undefined>;
  /** The hub that holds the last name of a path. */
  hubAt(prefix: readonly string[]): Promise<Hub>;
}

export const makeDirectoryOps = (
  kernel: Kernel,
  root: Hub,
  formulateDirectory: () => string,
  follow: FollowOut,
): DirectoryOps => {
  const { namePathFrom, petNamePathFrom } = kernel.rules;
  const bindMethod = kernel.dialect === 'feb' ? 'write' : 'storeIdentifier';
  const hubFor = (value: unknown): Hub => kernel.hubOf(value) ?? makeRemoteHub(value, bindMethod);

  const lookupPath = async (path: readonly string[]): Promise<unknown> => {
    let value: unknown = await root.lookup(path[0]);
    for (const name of path.slice(1)) {
      // Each segment is looked up in the hub the previous one named.
      // eslint-disable-next-line no-await-in-loop
      value = await hubFor(value).lookup(name);
    }
    return value;
  };

  const hubAt = async (prefix: readonly string[]): Promise<Hub> =>
    prefix.length === 0 ? root : hubFor(await lookupPath(prefix));

  const identifyPath = async (path: readonly string[]) =>
    (await hubAt(path.slice(0, -1))).identify(path[path.length - 1]);

  const writePath = async (path: readonly string[], id: string) =>
    (await hubAt(path.slice(0, -1))).write(path[path.length - 1], id);

  const list = async (...path: string[]) => {
    const hub = path.length === 0 ? root : await hubAt(namePathFrom(path));
    return harden([...(await hub.list())]);
  };

  const copy = async (fromPath: readonly string[], toPath: readonly string[]) => {
    const from = namePathFrom(fromPath);
    const to = petNamePathFrom(toPath);
    const id = await identifyPath(from);
    if (id === undefined) throw Error(`Unknown name: ${q(from)}`);
    await writePath(to, id);
  };

  const feedOf = (): NameFeed => {
    if (root.feed === undefined) throw Error('This directory cannot be followed');
    return root.feed;
  };

  const reverseIdentify = async (id: string) => {
    assertValidId(kernel.dialect, id);
    return harden([...(await root.reverseIdentify(id))]);
  };

  return harden({
    has: async (...path: string[]) => {
      const names = namePathFrom(path);
      return (await hubAt(names.slice(0, -1))).has(names[names.length - 1]);
    },
    identify: async (...path: string[]) => identifyPath(namePathFrom(path)),
    reverseIdentify,
    locate: async (...path: string[]) => {
      const id = await identifyPath(namePathFrom(path));
      if (id === undefined) return undefined;
      const formula = kernel.formulas.get(id);
      return formatLocator(kernel.dialect, id, formula?.type ?? 'remote');
    },
    reverseLocate: async (locator: string) => reverseIdentify(idFromLocator(kernel.dialect, locator)),
    followNameChanges: async () => follow(nameChangesSource(kernel, feedOf())),
    followLocatorNameChanges: async (locator: string) => {
      const id = idFromLocator(kernel.dialect, locator);
      const feed = feedOf();
      const [self, host] = kernel.dialect === 'feb' ? ['SELF', 'HOST'] : ['@self', '@host'];
      return follow(locatorNameChangesSource(feed, locator, id, self, host));
    },
    list,
    listIdentifiers: async (...path: string[]) => {
      const hub = path.length === 0 ? root : await hubAt(namePathFrom(path));
      const ids = await Promise.all((await hub.list()).map(name => hub.identify(name)));
      const unique = new Set(ids.filter((id): id is string => id !== undefined));
      return harden([...unique].sort());
    },
    lookup: async (nameOrPath: NameOrPath) => lookupPath(namePathFrom(nameOrPath)),
    reverseLookup: async (value: unknown) => {
      const id = kernel.idOf(value);
      return id === undefined ? harden([]) : harden([...(await root.reverseIdentify(id))]);
    },
    write: async (nameOrPath: NameOrPath, id: string) => {
      const path = petNamePathFrom(nameOrPath);
      assertValidId(kernel.dialect, id, path[path.length - 1]);
      await writePath(path, id);
    },
    remove: async (...path: string[]) => {
      const names = petNamePathFrom(path);
      await (await hubAt(names.slice(0, -1))).remove(names[names.length - 1]);
    },
    move: async (fromPath: readonly string[], toPath: readonly string[]) => {
      const from = petNamePathFrom(fromPath);
      const to = petNamePathFrom(toPath);
      const fromPrefix = from.slice(0, -1);
      const toPrefix = to.slice(0, -1);
      if (JSON.stringify(fromPrefix) === JSON.stringify(toPrefix)) {
        await (await hubAt(fromPrefix)).rename(from[from.length - 1], to[to.length - 1]);
        return;
      }
      await copy(from, to);
      await (await hubAt(fromPrefix)).remove(from[from.length - 1]);
    },
    copy,
    makeDirectory: async (nameOrPath: NameOrPath) => {
      const path = petNamePathFrom(nameOrPath);
      // Always a new, empty directory: an existing binding is replaced.
      const hub = await hubAt(path.slice(0, -1));
      const id = formulateDirectory();
      await hub.write(path[path.length - 1], id);
      return kernel.provide(id);
    },
    identifyPath,
    hubAt,
  });
};
harden(makeDirectoryOps);

// The name methods that differ by generation (next spec §4): February
// binds ids with `write`; May and August have `storeIdentifier` (which
// checks only the id's shape), `storeLocator`, `maybeLookup` and
// `listLocators`, and no `write`.
import { q } from '@endo/errors';
import type { Kernel } from '../kernel/kernel.js';
import type { DirectoryOps } from './directory.js';
import { formatLocator, idFromLocator } from './locators.js';

type NameOrPath = string | readonly string[];

export const bindingMethods = (kernel: Kernel, ops: DirectoryOps) => {
  if (kernel.dialect === 'feb') return harden({ write: ops.write });
  return harden({
    storeIdentifier: ops.write,
    storeLocator: async (nameOrPath: NameOrPath, locator: string) => {
      if (!locator.startsWith('endo://')) {
        throw Error(`storeLocator requires an endo:// locator, got ${q(locator)}`);
      }
      await ops.write(nameOrPath, idFromLocator(kernel.dialect, locator));
    },
    maybeLookup: async (nameOrPath: NameOrPath) => {
      const path = kernel.rules.namePathFrom(nameOrPath);
      if ((await ops.identify(path[0])) === undefined) return undefined;
      return ops.lookup(path);
    },
    listLocators: async (...path: string[]) => {
      const names = await ops.list(...path);
      const ids = await Promise.all(names.map(name => ops.identify(...path, name)));
      const entries = names.flatMap((name, index) => {
        const id = ids[index];
        if (id === undefined) return [];
        const type = kernel.formulas.get(id)?.type ?? 'remote';
        return [[name, formatLocator(kernel.dialect, id, type)] as const];
      });
      return harden(Object.fromEntries(entries));
    },
  });
};
harden(bindingMethods);

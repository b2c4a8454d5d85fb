// What a capability's method tool reaches in fae's directory (issue 38),
// always through the view made for the turn that calls it (sealed-powers.ts):
// a capability the model names as an argument is looked up with the turn's
// authority, and one a method answers is kept under a fresh name the model
// bound (model-names.ts notes it, as for every name the model binds).
import { E } from '@endo/far';
import type { DaemonAdapter } from '../../daemon/adapter.js';
import type { DirectoryIn } from '../capabilities/method-tool.js';
import { readNamePath } from './built-in-arguments.js';
import type { PowersIn } from './built-in-tool.js';

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export const makeDirectoryIn = (powersIn: PowersIn, provideDaemon: () => Promise<DaemonAdapter>): DirectoryIn => {
  /** Numbers the fresh names of this run; `has` tells a name an earlier run took. */
  let count = 0;
  const freshName = async (view: ReturnType<PowersIn>, base: string) => {
    for (;;) {
      count += 1;
      const name = `${base}-${count}`;
      // One at a time on purpose: the first free number is taken.
      // eslint-disable-next-line no-await-in-loop
      if (!(await E(view).has(name))) return name;
    }
  };
  return scope =>
    harden({
      lookUp: async (nameOrPath: string) => {
        const daemon = await provideDaemon();
        return E(powersIn(scope)).lookup(daemon.path(readNamePath({ name: nameOrPath }, 'name')));
      },
      keep: async (capability: unknown, base: string) => {
        const view = powersIn(scope);
        const name = await freshName(view, base);
        try {
          await E(view).storeValue(capability, name);
        } catch (error) {
          // The daemon binds the name before it stores: a value it cannot store leaves a name to nothing.
          await E(view).remove(name).catch(() => {});
          throw Error(`the daemon cannot store it under a name (${reasonOf(error)}); only capabilities the daemon made can be kept`);
        }
        return name;
      },
    });
};
harden(makeDirectoryIn);

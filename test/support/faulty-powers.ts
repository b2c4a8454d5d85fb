// Guest powers with faults: a far object that forwards every method to
// fae's real powers in the local daemon, except the calls a test chooses to
// refuse (a refused send, reply, dismiss or lookup). The daemon itself is
// untouched; only what fae sees of it fails.
//
//   const faults = makeFaults();
//   faults.refuse('send', ([recipient]) => recipient === specialNames.host);   // until faults.allow('send')
//   startFaeInDaemon({ provider, wrapPowers: powers => faultyPowers(powers, faults) });
//   const release = faults.hold('storeValue');   // such calls wait until release()
import { E, Far } from '@endo/far';
import { makePromiseKit } from '@endo/promise-kit';

// `any`: remote references.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type FarRef = any;

type Refusal = (args: readonly unknown[]) => boolean;

export const makeFaults = () => {
  const refusals = new Map<string, Refusal>();
  const refused: string[] = [];
  const holds = new Map<string, { readonly promise: Promise<void>; readonly when: Refusal }>();
  return {
    /**
     * Calls of `method` (those `when` accepts, by default all) wait (then
     * go through) until the returned function is called.
     */
    hold: (method: string, when: Refusal = () => true) => {
      const { promise, resolve } = makePromiseKit<void>();
      holds.set(method, { promise, when });
      return () => {
        holds.delete(method);
        resolve();
      };
    },
    /** Resolves when this call of `method` may go on. */
    held: async (method: string, args: readonly unknown[] = []) => {
      const hold = holds.get(method);
      return hold !== undefined && hold.when(args) ? hold.promise : undefined;
    },
    /** Refuse calls of `method` (those `when` accepts, by default all). */
    refuse: (method: string, when: Refusal = () => true) => {
      refusals.set(method, when);
    },
    allow: (method: string) => {
      refusals.delete(method);
    },
    /** The calls refused so far, as "method". */
    refused,
    check: (method: string, args: readonly unknown[]) => {
      const when = refusals.get(method);
      if (when !== undefined && when(args)) {
        refused.push(method);
        throw Error(`the daemon refused ${method} (injected fault)`);
      }
    },
  };
};
export type Faults = ReturnType<typeof makeFaults>;

const GUEST_METHODS = harden([
  'help', 'has', 'identify', 'reverseIdentify', 'list', 'lookup', 'remove', 'move', 'copy',
  'makeDirectory', 'storeValue', 'listMessages', 'followMessages', 'send', 'reply', 'adopt',
  'dismiss', 'request', 'evaluate', 'locate', 'reverseLocate', 'followNameChanges',
]);

export const faultyPowers = async (powers: unknown, faults: Faults): Promise<FarRef> => {
  const names = (await E(powers as FarRef)
    .__getMethodNames__()
    .catch(() => GUEST_METHODS)) as string[];
  const methods: Record<string, (...args: unknown[]) => unknown> = {};
  for (const name of names) {
    if (name === '__getMethodNames__') continue;
    methods[name] = async (...args: unknown[]) => {
      faults.check(name, args);
      await faults.held(name, args);
      return E(powers as FarRef)[name](...args);
    };
  }
  return Far('FaultyGuestPowers', methods);
};

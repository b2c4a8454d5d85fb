// Guest and host exos (spec §4, §7): the pet sitter's name operations,
// mail, stored values, and for a host, guests and caplets.
import { makeExo } from '@endo/exo';
import { q } from '@endo/errors';
import type { AgentFormula, Kernel } from './kernel.js';
import type { Instrument } from './instrument.js';
import type { Formulator } from './formulate.js';
import type { CapletRunner } from './caplets.js';
import { makeDirectoryOps, type DirectoryOps } from './directory.js';
import { makePetSitter } from './hubs.js';
import { makeMailOps, type PostOffice } from './mail.js';
import { GuestInterface, HostInterface } from './interfaces.js';
import { agentDocs, hostDocs, makeHelp } from './help.js';
import { assertValidId } from './ids.js';
import { makeValueMarshal } from './value-marshal.js';
import type { FollowOut } from './far-follower.js';
import { assertName, assertPetName, namePathFrom, petNamePathFrom } from './names.js';

type NameOrPath = string | readonly string[];

export interface AgentPowers {
  readonly kernel: Kernel;
  readonly instrument: Instrument;
  readonly formulator: Formulator;
  readonly post: PostOffice;
  readonly runner: CapletRunner;
  /** Caplets made without a result name: kept alive as if pinned. */
  readonly transientRoots: Set<string>;
  /** Hands out follow* results in the dialect's form. */
  readonly follow: FollowOut;
}

const makeAgentMethods = (id: string, formula: AgentFormula, powers: AgentPowers) => {
  const { kernel, formulator, post } = powers;
  const root = makePetSitter(kernel, formula.store, formula.specials);
  const names = makeDirectoryOps(kernel, root, formulator.directory, powers.follow);
  const mail = makeMailOps(kernel, id, formula, names, post);
  const marshal = makeValueMarshal(kernel);
  const methods = {
    has: names.has,
    identify: names.identify,
    reverseIdentify: names.reverseIdentify,
    locate: names.locate,
    reverseLocate: names.reverseLocate,
    followNameChanges: names.followNameChanges,
    followLocatorNameChanges: names.followLocatorNameChanges,
    list: names.list,
    listIdentifiers: names.listIdentifiers,
    lookup: names.lookup,
    reverseLookup: names.reverseLookup,
    write: names.write,
    remove: names.remove,
    move: names.move,
    copy: names.copy,
    makeDirectory: names.makeDirectory,
    lookupById: async (formulaId: string) => {
      assertValidId(formulaId);
      return kernel.provide(formulaId);
    },
    storeValue: async (value: unknown, nameOrPath: NameOrPath) => {
      const path = petNamePathFrom(nameOrPath);
      // Like the daemon: the name is bound first, then the value serialised;
      // a failure leaves the name bound to an id without a formula.
      const valueId = kernel.mintId();
      await names.write(path, valueId);
      const { body, slots } = marshal.toCapData(harden(value) as Parameters<typeof marshal.toCapData>[0]);
      kernel.register(valueId, { type: 'marshal', body, slots: harden([...slots]) });
    },
    handle: async () => kernel.provide(formula.handle),
    ...mail,
  };
  return { root, names, methods, marshal };
};

/**
 * Instruments every method. The result is typed loosely (`any`, at the exo
 * boundary): the guard already checks arguments, and the method types
 * makeExo derives from a guard (e.g. `string | void`) do not match ours.
 */
const instrumentAll = (
  instrument: Instrument,
  methods: Record<string, (...args: never[]) => unknown>,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): any => {
  const wrapped: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(methods)) {
    // A request waits for its answer indefinitely; it must not hold off collection.
    wrapped[name] = instrument(name, fn, name !== 'request');
  }
  return wrapped;
};

export const makeGuestExo = (id: string, formula: AgentFormula, powers: AgentPowers): object => {
  const { root, methods } = makeAgentMethods(id, formula, powers);
  const help = makeHelp('An EndoGuest: the powers of a guest agent.', agentDocs);
  const exo = makeExo(
    'EndoGuest',
    GuestInterface,
    instrumentAll(powers.instrument, { help: async (name?: string) => help(name), ...methods }),
  );
  powers.kernel.setHub(exo, root);
  return exo;
};
harden(makeGuestExo);

const makeHostMethods = (formula: AgentFormula, names: DirectoryOps, powers: AgentPowers) => {
  const { kernel, formulator, runner, transientRoots } = powers;

  /** Writes introduced names into an agent's top level (spec §2.5). */
  const introduce = (targetId: string, introducedNames: Record<string, unknown>) => {
    for (const [hostName, guestName] of Object.entries(introducedNames)) {
      assertName(hostName);
      const introducedId = (() => {
        const special = formula.specials[hostName];
        return special ?? formula.store.identify(hostName);
      })();
      if (introducedId === undefined) continue;
      const target = kernel.formulas.get(targetId);
      if (target?.type !== 'host' && target?.type !== 'guest') {
        // What the daemon reports when the name denotes a handle, not an agent.
        throw TypeError('agent.write is not a function');
      }
      assertPetName(String(guestName));
      target.store.write(String(guestName), introducedId);
    }
  };

  const provideGuest = async (
    petName?: string,
    options: { introducedNames?: Record<string, unknown>; agentName?: string } = {},
  ) => {
    const { introducedNames = {}, agentName } = options;
    if (petName !== undefined) {
      const existing = await names.identify(petName);
      if (existing !== undefined) {
        // Whatever the name denotes; for a guest that is its handle.
        introduce(existing, introducedNames);
        return kernel.provide(existing);
      }
      assertPetName(petName);
    }
    if (agentName !== undefined) assertPetName(agentName);
    const { agentId, handleId } = formulator.guest(formula.handle);
    if (petName !== undefined) formula.store.write(petName, handleId);
    if (agentName !== undefined) formula.store.write(agentName, agentId);
    introduce(agentId, introducedNames);
    return kernel.provide(agentId);
  };

  const makeUnconfined = async (
    workerName: string | undefined,
    specifier: string,
    options: { powersName?: string; resultName?: NameOrPath; env?: Record<string, string> } = {},
  ) => {
    const { powersName = 'NONE', resultName, env = {} } = options;
    return makeCapletFormula({ workerName, specifier, local: undefined, powersName, resultName, env });
  };

  const makeCapletFormula = async (spec: {
    workerName: string | undefined;
    specifier: string | undefined;
    local: string | undefined;
    powersName: string;
    resultName: NameOrPath | undefined;
    env: Readonly<Record<string, string>>;
  }) => {
    const worker = await provideWorker(spec.workerName);
    const powersId = await providePowers(spec.powersName);
    const capletId = kernel.mintId();
    // The result name is bound before the module is even loaded.
    if (spec.resultName !== undefined) await names.write(spec.resultName, capletId);
    else transientRoots.add(capletId);
    kernel.register(capletId, {
      type: 'make-unconfined',
      worker,
      powers: powersId,
      specifier: spec.specifier,
      local: spec.local,
      env: harden({ ...spec.env }),
    });
    return kernel.provide(capletId);
  };

  const provideWorker = async (workerName: string | undefined) => {
    if (workerName === undefined) return kernel.formulate({ type: 'worker' });
    const existing = await names.identify(workerName);
    if (existing !== undefined) return existing;
    assertPetName(workerName);
    const workerId = kernel.formulate({ type: 'worker' });
    formula.store.write(workerName, workerId);
    return workerId;
  };

  const providePowers = async (powersName: string) => {
    if (!['NONE', 'AGENT', 'ENDO'].includes(powersName)) assertPetName(powersName);
    const existing = await names.identify(powersName);
    if (existing !== undefined) return existing;
    // An unbound pet name: a new guest of this host, bound under that name.
    const { agentId } = formulator.guest(formula.handle);
    formula.store.write(powersName, agentId);
    return agentId;
  };

  const cancel = async (nameOrPath: NameOrPath, reason: Error = Error('Cancelled')) => {
    const id = await names.identifyPath(namePathFrom(nameOrPath));
    if (id === undefined) throw TypeError(`Unknown pet name: ${q(nameOrPath)}`);
    await runner.cancel(id, reason);
  };

  return { provideGuest, makeUnconfined, cancel, makeCapletFormula };
};

export type HostInternals = ReturnType<typeof makeHostMethods>;

export const makeHostExo = (
  id: string,
  formula: AgentFormula,
  powers: AgentPowers,
): { exo: object; internals: HostInternals } => {
  const { root, names, methods } = makeAgentMethods(id, formula, powers);
  const internals = makeHostMethods(formula, names, powers);
  const help = makeHelp('An EndoHost: the powers of a host agent.', hostDocs);
  const exo = makeExo(
    'EndoHost',
    HostInterface,
    instrumentAll(powers.instrument, {
      help: async (name?: string) => help(name),
      ...methods,
      provideGuest: internals.provideGuest,
      makeUnconfined: internals.makeUnconfined,
      cancel: internals.cancel,
    }),
  );
  powers.kernel.setHub(exo, root);
  return { exo, internals };
};
harden(makeHostExo);

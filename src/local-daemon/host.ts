// A host's own methods (spec §2.1, §2.5; next spec §5.1-5.2): provideGuest,
// makeUnconfined and cancel, with each generation's special names.
import { q } from '@endo/errors';
import type { AgentFormula } from './kernel/kernel.js';
import type { DirectoryOps } from './names/directory.js';
import type { AgentPowers } from './agent-powers.js';
import { makeProvideWorker } from './workers/workers.js';

type NameOrPath = string | readonly string[];

export const makeHostMethods = (formula: AgentFormula, names: DirectoryOps, powers: AgentPowers) => {
  const { kernel, formulator, runner, transientRoots } = powers;
  const provideNamedWorker = makeProvideWorker(kernel, formula, names, formulator);
  const { dialect } = kernel;
  const { assertName, assertPetName, namePathFrom, petNamePathFrom } = kernel.rules;
  const isFeb = dialect === 'feb';
  /** The special powers names makeUnconfined accepts. */
  const powersSpecials = isFeb ? ['NONE', 'AGENT', 'ENDO'] : ['@none', '@agent', '@endo'];

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
        throw TypeError(`agent.${isFeb ? 'write' : 'storeIdentifier'} is not a function`);
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
    // August takes paths ending in a pet name, checked before anything else,
    // so provideGuest('@agent') throws there (and returns the host on May).
    if (dialect === 'aug') {
      if (petName !== undefined) petNamePathFrom(petName);
      if (agentName !== undefined) petNamePathFrom(agentName);
    }
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

  const provideWorker = (workerName: string | undefined, shims: readonly string[]) =>
    // February: a fresh worker. Later: the shared @node worker, unless
    // trusted shims need a worker of their own.
    provideNamedWorker(workerName, { fresh: isFeb || shims.length > 0 });

  const providePowers = async (powersName: string) => {
    if (!powersSpecials.includes(powersName)) assertPetName(powersName);
    const existing = await names.identify(powersName);
    if (existing !== undefined) return existing;
    // An unbound pet name: a new guest of this host, bound under that name.
    const { agentId } = formulator.guest(formula.handle);
    formula.store.write(powersName, agentId);
    return agentId;
  };

  const makeCapletFormula = async (spec: {
    workerName: string | undefined;
    specifier: string | undefined;
    local: string | undefined;
    powersName: string;
    resultName: NameOrPath | undefined;
    env: Readonly<Record<string, string>>;
    shims?: readonly string[];
  }) => {
    const worker = await provideWorker(spec.workerName, spec.shims ?? []);
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

  const makeUnconfined = async (
    workerName: string | undefined,
    specifier: string,
    options: {
      powersName?: string;
      resultName?: NameOrPath;
      env?: Record<string, string>;
      workerTrustedShims?: readonly string[];
    } = {},
  ) => {
    const { powersName = powersSpecials[0], resultName, env = {}, workerTrustedShims = [] } = options;
    return makeCapletFormula({
      workerName,
      specifier,
      local: undefined,
      powersName,
      resultName,
      env,
      shims: isFeb ? [] : workerTrustedShims,
    });
  };

  const cancel = async (nameOrPath: NameOrPath, reason: Error = Error('Cancelled')) => {
    const id = await names.identifyPath(namePathFrom(nameOrPath));
    if (id === undefined) throw TypeError(`Unknown pet name: ${q(nameOrPath)}`);
    await runner.cancel(id, reason);
  };

  return { provideGuest, makeUnconfined, cancel, makeCapletFormula };
};

export type HostInternals = ReturnType<typeof makeHostMethods>;

// Guest and host exos (spec §4, §7; next spec §3-§5): the pet sitter's
// name operations, mail, stored values, and for a host, guests and caplets
// (host.ts).
import { makeExo } from '@endo/exo';
import type { AgentFormula } from './kernel/kernel.js';
import type { Instrument } from './kernel/instrument.js';
import { makeDirectoryOps } from './names/directory.js';
import { bindingMethods } from './names/directory-new.js';
import { makeHostMethods, type HostInternals } from './host.js';
import { makeApproveEvaluation } from './workers/evaluation.js';
import { idFromLocator } from './names/locators.js';
import { makePetSitter } from './names/hubs.js';
import { makeMailOps } from './mail/mail.js';
import { interfacesFor } from './interfaces.js';
import { agentDocs, docsFor, hostDocs, makeHelp } from './help.js';
import { assertValidId } from './kernel/ids.js';
import { makeValueMarshal } from './kernel/value-marshal.js';
import type { AgentPowers } from './agent-powers.js';

type NameOrPath = string | readonly string[];

const makeAgentMethods = (id: string, formula: AgentFormula, powers: AgentPowers) => {
  const { kernel, formulator, post } = powers;
  const { petNamePathFrom } = kernel.rules;
  const root = makePetSitter(kernel, formula.store, formula.specials);
  const names = makeDirectoryOps(kernel, root, formulator.directory, powers.follow);
  const mail = makeMailOps(kernel, id, formula, names, post, formulator);
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
    ...bindingMethods(kernel, names),
    remove: names.remove,
    move: names.move,
    copy: names.copy,
    makeDirectory: names.makeDirectory,
    lookupById: async (formulaId: string) => {
      assertValidId(kernel.dialect, formulaId);
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
    ...(kernel.dialect === 'aug'
      ? { lookupByLocator: async (locator: string) => kernel.provide(idFromLocator('aug', locator)) }
      : {}),
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
  const { dialect } = powers.kernel;
  const help = makeHelp('An EndoGuest: the powers of a guest agent.', docsFor(dialect, agentDocs, true));
  const exo = makeExo(
    'EndoGuest',
    interfacesFor(dialect).GuestInterface,
    instrumentAll(powers.instrument, { help: async (name?: string) => help(name), ...methods }),
  );
  powers.kernel.setHub(exo, root);
  return exo;
};
harden(makeGuestExo);

export const makeHostExo = (
  id: string,
  formula: AgentFormula,
  powers: AgentPowers,
): { exo: object; internals: HostInternals } => {
  const { root, names, methods } = makeAgentMethods(id, formula, powers);
  const internals = makeHostMethods(formula, names, powers);
  const { dialect } = powers.kernel;
  const help = makeHelp('An EndoHost: the powers of a host agent.', docsFor(dialect, hostDocs, true));
  const exo = makeExo(
    'EndoHost',
    interfacesFor(dialect).HostInterface,
    instrumentAll(powers.instrument, {
      help: async (name?: string) => help(name),
      ...methods,
      provideGuest: internals.provideGuest,
      makeUnconfined: internals.makeUnconfined,
      cancel: internals.cancel,
      ...(dialect === 'feb'
        ? { approveEvaluation: makeApproveEvaluation(powers.kernel, formula, names, powers.formulator, powers.post) }
        : {}),
    }),
  );
  powers.kernel.setHub(exo, root);
  return { exo, internals };
};
harden(makeHostExo);
export type { HostInternals };

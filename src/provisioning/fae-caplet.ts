// A fae's guest and controller on a host: provided once, replaced with new
// settings, and pinned so the daemon revives it. Everything here acts on
// the fae FAE_NAME names (fae-names.ts) and leaves any other alone.
//
// The pin is a second name for the controller's formula in the host's pins
// directory, and the daemon provides every pinned formula again when it
// starts (the February daemon also after each collection pass, so even a
// cancelled pinned fae comes back). Cancelling a pinned fae therefore does
// not stop it for long, and removing the name `controller-for-fae` leaves it
// running under the pin. So a fae is always unpinned BEFORE it is cancelled,
// and a pin `controller-for-fae` that holds another formula than the name
// `controller-for-fae` is a second fae, which answers every message again:
// setup removes it.
import { E } from '@endo/far';
import { q } from '@endo/errors';
import { type SpecialNames, formulaIdOf } from '../daemon/dialect.js';
import { withTimeout } from '../timeout.js';
import { type FaeSetupConfig, type HostRef, builtModuleUrl } from './provisioning.js';
import { type HostState, inspectHost } from './host-state.js';
import { DEFAULT_FAE_NAMES, type FaeNames } from './fae-names.js';

/** How long setup waits for fae's first start before pinning it anyway. */
const START_WAIT_MS = 30_000;

/** The Fae exo, as setup sees it. */
interface FaeController {
  whenStarted(): Promise<unknown>;
}

const pinPath = (names: SpecialNames, fae: FaeNames) => harden([names.pins, fae.controller]);

/** How the report names the pin (the CLI's path syntax of the generation). */
const pinLabel = (state: HostState) =>
  `${state.names.pins}${state.dialect === 'feb' ? '.' : '/'}${state.fae.controller}`;

/** How the user runs `script` for this fae: the name is given unless it is the default. */
const commandFor = (script: string, fae: FaeNames) =>
  fae.guest === DEFAULT_FAE_NAMES.guest ? `npm run ${script}` : `npm run ${script} -- -E FAE_NAME=${fae.guest}`;

/**
 * Unpins a pin that holds another formula than the fae's controller. With
 * the pin gone nothing names that formula, so the daemon collects it and
 * cancels the fae it runs; it is not looked up (that would start it).
 */
const removeStalePin = async (host: HostRef, state: HostState): Promise<string[]> => {
  if (state.pinnedId === undefined || state.pinnedId === state.controllerId) return [];
  await E(host).remove(...pinPath(state.names, state.fae));
  const { controller } = state.fae;
  const which =
    state.controllerId === undefined
      ? `a fae whose name ${controller} had been removed`
      : `another fae than ${controller}`;
  return [
    `${pinLabel(state)}: held ${which}, still running with its old settings and answering every message a second time; unpinned it, so the daemon stops it`,
  ];
};

/**
 * Stops the running fae (the one `state` was inspected for) for good,
 * keeping its guest (directory, tools, mail): unpins whatever is pinned
 * under its controller's name, then cancels and removes the controller.
 * Unpinning first matters: a pinned fae that is cancelled is revived.
 */
export const retireFae = async (host: HostRef, state: HostState): Promise<string[]> => {
  const lines = await removeStalePin(host, state);
  if (state.controllerId === undefined) return lines;
  const { controller } = state.fae;
  // Sequential on purpose: each step must land before the next.
  if (state.pinnedId === state.controllerId) {
    await E(host).remove(...pinPath(state.names, state.fae));
  }
  await E(host).cancel(controller);
  await E(host).remove(controller);
  lines.push(`${controller}: the running fae was unpinned, cancelled and removed`);
  return lines;
};
harden(retireFae);

/** Waits (bounded) for the fae's first start, then pins it. */
const pinFae = async (host: HostRef, names: SpecialNames, fae: FaeNames): Promise<string> => {
  // Wait for fae's first start to finish first: the upstream daemon can
  // collect a directory being made (fae's tools/) when another call's
  // collection pass lands in the middle, and this copy is such a call.
  await withTimeout(
    E(E(host).lookup(fae.controller) as Promise<FaeController>).whenStarted(),
    START_WAIT_MS,
    () => 'fae did not finish starting',
  ).catch(() => {});
  // The daemon revives what the pins directory holds when it starts;
  // without this, fae would stay asleep after `endo restart` until someone
  // looked it up.
  await E(host).copy([fae.controller], pinPath(names, fae));
  return `${fae.controller}: pinned, so ${fae.guest} starts again with the daemon`;
};

/** Starts the caplet of the fae `config` names (`controller-for-fae`), with its settings, and pins it. */
export const startFae = async (
  host: HostRef,
  config: FaeSetupConfig,
  names: SpecialNames,
): Promise<string[]> => {
  const fae = config.names;
  const agentUrl = builtModuleUrl('agent.js');
  await E(host).makeUnconfined(names.main, agentUrl, {
    powersName: fae.agent,
    resultName: fae.controller,
    env: config.env,
  });
  const started = `${fae.controller}: ${fae.guest} started with ${config.summary}`;
  return [started, await pinFae(host, names, fae)];
};
harden(startFae);

/**
 * Throws, before anything is made, when the fae's guest exists without its
 * powers: makeUnconfined with an unbound powersName would quietly make a
 * new, empty guest for it instead of using this one.
 */
export const checkFaeGuest = (state: HostState) => {
  const { guest, agent } = state.fae;
  if (state.bound.has(guest) && !state.bound.has(agent)) {
    throw Error(
      `${q(guest)} exists but ${q(agent)} does not, so its powers cannot be found; remove ${q(guest)} (or use a fresh daemon) and run this again`,
    );
  }
};
harden(checkFaeGuest);

/** The host as inspected for the fae `config` names: `state` when the script has read it already. */
const inspectedFor = async (host: HostRef, config: FaeSetupConfig, state?: HostState) => {
  if (state === undefined) return inspectHost(host, config.names);
  if (state.fae.guest !== config.names.guest) {
    throw Error(`the host was inspected for ${q(state.fae.guest)}, not for ${q(config.names.guest)}`);
  }
  return state;
};

/**
 * The host `names` that the guest whose powers are `agent` does not hold:
 * held means the same formula under that name in its tools/ directory, or
 * still at its top level where fae has not moved it yet. Read together.
 */
const notHeldBy = async (host: HostRef, agent: string, names: readonly string[]) => {
  const idOf = (...path: string[]) =>
    (E(host).identify(...path) as Promise<string | undefined>).then(
      id => (id === undefined ? undefined : (formulaIdOf(id) ?? id)),
      () => undefined,
    );
  const held = await Promise.all(
    names.map(async name => {
      const [own, inTools, atTop] = await Promise.all([idOf(name), idOf(agent, 'tools', name), idOf(agent, name)]);
      return own !== undefined && (own === inTools || own === atTop);
    }),
  );
  return names.filter((_, index) => !held[index]);
};

/** Makes the fae's guest, with `introduced` host names, unless its name is bound. */
const provideGuest = async (host: HostRef, state: HostState, introduced: readonly string[]): Promise<string[]> => {
  const { guest, agent } = state.fae;
  if (state.bound.has(guest)) {
    const line = `${guest}: guest already present, left as it is`;
    const missing = await notHeldBy(host, agent, introduced);
    if (missing.length === 0) return [line];
    return [
      line,
      `  (so ${missing.join(', ')} ${missing.length === 1 ? 'was' : 'were'} not introduced to it; send them to ${guest} in a message for it to adopt)`,
    ];
  }
  const introducedNames = Object.fromEntries(introduced.map(name => [name, name]));
  await E(host).provideGuest(guest, { introducedNames: harden(introducedNames), agentName: agent });
  const withTools = introduced.length > 0 ? `, introduced to ${introduced.join(', ')}` : '';
  return [`${guest}: guest created (powers ${agent}${withTools})`];
};

/**
 * Provisions the fae `config` names: the guest (with `introduced` host
 * names given to it under the same names, which fae moves into its tools/
 * directory at startup) and the caplet running agent.js with the guest's
 * powers, pinned. Each part is made only if its name is unbound; a pin on
 * another fae under the controller's name is removed. `state` is the host
 * as inspected (for this fae) before the script created anything.
 * Returns report lines.
 */
export const provideFae = async (
  host: HostRef,
  config: FaeSetupConfig,
  introduced: readonly string[] = [],
  state?: HostState,
): Promise<string[]> => {
  // A missing build is reported before the host is asked anything.
  builtModuleUrl('agent.js');
  const inspected = await inspectedFor(host, config, state);
  const { names, fae } = inspected;
  checkFaeGuest(inspected);
  const lines = await provideGuest(host, inspected, introduced);
  // Before a new fae starts: it would otherwise run beside the pinned one.
  lines.push(...(await removeStalePin(host, inspected)));
  if (inspected.controllerId === undefined) {
    lines.push(...(await startFae(host, config, names)));
  } else {
    lines.push(
      `${fae.controller}: already running, left as it is (to change its settings, run "${commandFor('setup-replace', fae)}" with the new ones)`,
    );
    lines.push(
      inspected.pinnedId === inspected.controllerId
        ? `${fae.controller}: already pinned`
        : await pinFae(host, names, fae),
    );
  }
  return lines;
};
harden(provideFae);

/**
 * Replaces the running fae `config` names with one that has `config`'s
 * settings: the old controller is unpinned, cancelled and removed, and a
 * new one is started with the same guest (its directory, tools/ and
 * unanswered mail stay) and pinned. Refuses, changing nothing, when there
 * is no such fae. Other faes of the host are not touched.
 */
export const replaceFae = async (
  host: HostRef,
  config: FaeSetupConfig,
  state?: HostState,
): Promise<string[]> => {
  // A missing build is reported before the host is asked anything.
  builtModuleUrl('agent.js');
  const inspected = await inspectedFor(host, config, state);
  const { guest } = inspected.fae;
  if (!inspected.bound.has(guest)) {
    throw Error(
      `There is no fae to replace: this host has no ${q(guest)}; nothing was changed. Provision it with "${commandFor('setup', inspected.fae)}" (or setup-with-tools)`,
    );
  }
  checkFaeGuest(inspected);
  const lines = [`${guest}: guest kept, with its directory, tools and unanswered mail`];
  lines.push(...(await retireFae(host, inspected)));
  lines.push(...(await startFae(host, config, inspected.names)));
  return lines;
};
harden(replaceFae);

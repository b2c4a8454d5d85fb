// fae's guest and controller on a host: provided once, replaced with new
// settings, and pinned so the daemon revives it.
//
// The pin is a second name for the controller's formula in the host's pins
// directory, and the daemon provides every pinned formula again when it
// starts (the February daemon also after each collection pass, so even a
// cancelled pinned fae comes back). Cancelling a pinned fae therefore does
// not stop it for long, and removing the name `controller-for-fae` leaves it
// running under the pin. So a fae is always unpinned BEFORE it is cancelled,
// and a pin that holds another formula than `controller-for-fae` is a
// second fae, which answers every message again: setup removes it.
import { E } from '@endo/far';
import { q } from '@endo/errors';
import type { SpecialNames } from '../daemon/dialect.js';
import { withTimeout } from '../timeout.js';
import {
  FAE_AGENT_NAME,
  FAE_CONTROLLER_NAME,
  FAE_GUEST_NAME,
  type FaeSetupConfig,
  type HostRef,
  builtModuleUrl,
} from './provisioning.js';
import { type HostState, inspectHost } from './host-state.js';

/** How long setup waits for fae's first start before pinning it anyway. */
const START_WAIT_MS = 30_000;

/** The Fae exo, as setup sees it. */
interface FaeController {
  whenStarted(): Promise<unknown>;
}

const pinPath = (names: SpecialNames) => harden([names.pins, FAE_CONTROLLER_NAME]);

/** How the report names the pin (the CLI's path syntax of the generation). */
const pinLabel = (state: HostState) =>
  `${state.names.pins}${state.dialect === 'feb' ? '.' : '/'}${FAE_CONTROLLER_NAME}`;

/**
 * Unpins a pin that holds another formula than `controller-for-fae`. With
 * the pin gone nothing names that formula, so the daemon collects it and
 * cancels the fae it runs; it is not looked up (that would start it).
 */
const removeStalePin = async (host: HostRef, state: HostState): Promise<string[]> => {
  if (state.pinnedId === undefined || state.pinnedId === state.controllerId) return [];
  await E(host).remove(...pinPath(state.names));
  const which =
    state.controllerId === undefined
      ? `a fae whose name ${FAE_CONTROLLER_NAME} had been removed`
      : `another fae than ${FAE_CONTROLLER_NAME}`;
  return [
    `${pinLabel(state)}: held ${which}, still running with its old settings and answering every message a second time; unpinned it, so the daemon stops it`,
  ];
};

/**
 * Stops the running fae for good, keeping its guest (directory, tools,
 * mail): unpins whatever is pinned as `controller-for-fae`, then cancels
 * and removes the controller. Unpinning first matters: a pinned fae that is
 * cancelled is revived.
 */
export const retireFae = async (host: HostRef, state: HostState): Promise<string[]> => {
  const lines = await removeStalePin(host, state);
  if (state.controllerId === undefined) return lines;
  // Sequential on purpose: each step must land before the next.
  if (state.pinnedId === state.controllerId) {
    await E(host).remove(...pinPath(state.names));
  }
  await E(host).cancel(FAE_CONTROLLER_NAME);
  await E(host).remove(FAE_CONTROLLER_NAME);
  lines.push(`${FAE_CONTROLLER_NAME}: the running fae was unpinned, cancelled and removed`);
  return lines;
};
harden(retireFae);

/** Waits (bounded) for fae's first start, then pins it. */
const pinFae = async (host: HostRef, names: SpecialNames): Promise<string> => {
  // Wait for fae's first start to finish first: the upstream daemon can
  // collect a directory being made (fae's tools/) when another call's
  // collection pass lands in the middle, and this copy is such a call.
  await withTimeout(
    E(E(host).lookup(FAE_CONTROLLER_NAME) as Promise<FaeController>).whenStarted(),
    START_WAIT_MS,
    () => 'fae did not finish starting',
  ).catch(() => {});
  // The daemon revives what the pins directory holds when it starts;
  // without this, fae would stay asleep after `endo restart` until someone
  // looked it up.
  await E(host).copy([FAE_CONTROLLER_NAME], pinPath(names));
  return `${FAE_CONTROLLER_NAME}: pinned, so fae starts again with the daemon`;
};

/** Starts fae's caplet with `config` under `controller-for-fae`, and pins it. */
export const startFae = async (
  host: HostRef,
  config: FaeSetupConfig,
  names: SpecialNames,
): Promise<string[]> => {
  const agentUrl = builtModuleUrl('agent.js');
  await E(host).makeUnconfined(names.main, agentUrl, {
    powersName: FAE_AGENT_NAME,
    resultName: FAE_CONTROLLER_NAME,
    env: config.env,
  });
  const started = `${FAE_CONTROLLER_NAME}: fae started with ${config.summary}`;
  return [started, await pinFae(host, names)];
};
harden(startFae);

/**
 * Throws, before anything is made, when fae's guest exists without its
 * powers: makeUnconfined with an unbound powersName would quietly make a
 * new, empty guest for fae instead of using this one.
 */
export const checkFaeGuest = (state: HostState) => {
  if (state.bound.has(FAE_GUEST_NAME) && !state.bound.has(FAE_AGENT_NAME)) {
    throw Error(
      `${q(FAE_GUEST_NAME)} exists but ${q(FAE_AGENT_NAME)} does not, so fae's powers cannot be found; remove ${q(FAE_GUEST_NAME)} (or use a fresh daemon) and run this again`,
    );
  }
};
harden(checkFaeGuest);

/**
 * Provisions fae: the guest (with `introduced` host names given to it under
 * the same names, which fae moves into its tools/ directory at startup) and
 * the caplet running agent.js with the guest's powers, pinned. Each part is
 * made only if its name is unbound; a pin on another fae is removed.
 * `state` is the host as inspected before the script created anything.
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
  const inspected = state ?? (await inspectHost(host));
  const { bound, names } = inspected;
  checkFaeGuest(inspected);
  const lines: string[] = [];
  if (bound.has(FAE_GUEST_NAME)) {
    lines.push(`${FAE_GUEST_NAME}: guest already present, left as it is`);
    if (introduced.length > 0) {
      lines.push(
        `  (so ${introduced.join(', ')} were not introduced to it; send them to ${FAE_GUEST_NAME} in a message for it to adopt)`,
      );
    }
  } else {
    const introducedNames = Object.fromEntries(introduced.map(name => [name, name]));
    await E(host).provideGuest(FAE_GUEST_NAME, {
      introducedNames: harden(introducedNames),
      agentName: FAE_AGENT_NAME,
    });
    const withTools = introduced.length > 0 ? `, introduced to ${introduced.join(', ')}` : '';
    lines.push(`${FAE_GUEST_NAME}: guest created (powers ${FAE_AGENT_NAME}${withTools})`);
  }
  // Before a new fae starts: it would otherwise run beside the pinned one.
  lines.push(...(await removeStalePin(host, inspected)));
  if (inspected.controllerId === undefined) {
    lines.push(...(await startFae(host, config, names)));
  } else {
    lines.push(
      `${FAE_CONTROLLER_NAME}: already running, left as it is (to change its settings, run "npm run setup-replace" with the new ones)`,
    );
    lines.push(
      inspected.pinnedId === inspected.controllerId
        ? `${FAE_CONTROLLER_NAME}: already pinned`
        : await pinFae(host, names),
    );
  }
  return lines;
};
harden(provideFae);

/**
 * Replaces the running fae with one that has `config`'s settings: the old
 * controller is unpinned, cancelled and removed, and a new one is started
 * with the same guest (its directory, tools/ and unanswered mail stay) and
 * pinned. Refuses, changing nothing, when there is no fae to replace.
 */
export const replaceFae = async (
  host: HostRef,
  config: FaeSetupConfig,
  state?: HostState,
): Promise<string[]> => {
  // A missing build is reported before the host is asked anything.
  builtModuleUrl('agent.js');
  const inspected = state ?? (await inspectHost(host));
  if (!inspected.bound.has(FAE_GUEST_NAME)) {
    throw Error(
      `There is no fae to replace: this host has no ${q(FAE_GUEST_NAME)}; nothing was changed. Provision it with "npm run setup" (or setup-with-tools)`,
    );
  }
  checkFaeGuest(inspected);
  const lines = [`${FAE_GUEST_NAME}: guest kept, with its directory, tools and unanswered mail`];
  lines.push(...(await retireFae(host, inspected)));
  lines.push(...(await startFae(host, config, inspected.names)));
  return lines;
};
harden(replaceFae);

// src/provisioning/: what the setup scripts (setup*.ts) do to a host.
//
// What the setup scripts share: the names fae is provisioned under, the
// configuration they forward (read and checked once, before anything is
// created), and idempotent steps against the host. The scripts run in the
// `endo run` CLI process, with the host as `--powers AGENT`; `-E KEY=VALUE`
// pairs land in that process's process.env and reach caplets only through
// the `env` we pass to makeUnconfined (../shared/spec/endo-guest-api.md §3).
//
// Re-running a script must neither fail nor duplicate: every step asks the
// host `has(name)` first. A second provideGuest with introduced names throws
// and a second makeUnconfined under the same result name starts a second
// instance (§2.5, §2.1), so neither is ever called for a name that exists.
import fs from 'node:fs';
import process from 'node:process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { E } from '@endo/far';
import { q } from '@endo/errors';
import { describeProviderConfig, readProviderConfig } from '../../providers/config.js';
import { readFaeConfig } from '../agent/config.js';
import { makeFsRoot } from '../tool-kit/fs-root.js';
import { withTimeout } from '../timeout.js';

/** Host-side name of fae's handle (its mail identity). */
export const FAE_GUEST_NAME = 'fae';
/** Host-side name of fae's guest powers, handed to the caplet. */
export const FAE_AGENT_NAME = 'profile-for-fae';
/** Host-side name of the running fae caplet (its Fae exo). */
export const FAE_CONTROLLER_NAME = 'controller-for-fae';
/** The daemon-wide worker fae and its tools run in. */
export const WORKER_NAME = 'MAIN';
/** The host directory whose values the daemon revives when it starts. */
export const PINS_DIRECTORY = 'PINS';
/** How long setup waits for fae's first start before pinning it anyway. */
const START_WAIT_MS = 30_000;

/** The Fae exo, as setup sees it. */
interface FaeController {
  whenStarted(): Promise<unknown>;
}

export interface ToolCaplet {
  /** The pet name the tool gets in the host (and, when introduced, in fae). */
  readonly petName: string;
  /** The built module, relative to the package's dist/ directory. */
  readonly module: string;
}

export const EXAMPLE_TOOLS: readonly ToolCaplet[] = harden([
  { petName: 'greet-tool', module: 'tools/greet.js' },
  { petName: 'math-tool', module: 'tools/math.js' },
  { petName: 'timestamp-tool', module: 'tools/timestamp.js' },
]);

export const FS_TOOLS: readonly ToolCaplet[] = harden([
  { petName: 'read-file', module: 'tools/read-file.js' },
  { petName: 'write-file', module: 'tools/write-file.js' },
  { petName: 'edit-file', module: 'tools/edit-file.js' },
  { petName: 'edit', module: 'tools/edit.js' },
  { petName: 'list-dir', module: 'tools/list-dir.js' },
  { petName: 'run-command', module: 'tools/run-command.js' },
]);

/** The settings fae reads from its env (providers/config.ts, src/config.ts). */
export const FAE_ENV_NAMES: readonly string[] = harden([
  'LAL_HOST',
  'LAL_MODEL',
  'LAL_AUTH_TOKEN',
  'LAL_PROVIDER',
  'LAL_MAX_TOKENS',
  'LAL_MAX_MESSAGES',
  'LAL_MAX_RETRIES',
  'LAL_TIMEOUT_MS',
  'FAE_MAX_ITERATIONS',
  'FAE_TOOL_TIMEOUT_MS',
  'FAE_PROBE_TIMEOUT_MS',
  'FAE_PARALLEL_TOOLS',
  'FAE_AUTO_DISMISS',
  'FAE_DEBUG',
  'FAE_MAX_TRANSCRIPT',
]);

/** The parts of the EndoHost the scripts call. */
export interface HostPowers {
  has(...path: string[]): boolean;
  provideGuest(
    petName: string,
    options: {
      readonly introducedNames: Readonly<Record<string, string>>;
      readonly agentName: string;
    },
  ): unknown;
  makeUnconfined(
    workerName: string,
    specifier: string,
    options: {
      readonly powersName?: string;
      readonly resultName: string;
      readonly env?: Readonly<Record<string, string>>;
    },
  ): unknown;
  copy(fromPath: readonly string[], toPath: readonly string[]): void;
  lookup(nameOrPath: string | readonly string[]): unknown;
}

export type HostRef = HostPowers | PromiseLike<HostPowers>;
export type Env = Readonly<Record<string, string | undefined>>;

// This module is built to dist/src/provisioning/; the caplet modules sit in dist/.
const DIST_URL = new URL('../../', import.meta.url);

/**
 * The absolute file: URL of a built module, which is what the daemon's
 * worker needs as a specifier. Checked here so a missing build is reported
 * before anything is created, not as an import failure inside the daemon.
 */
export const builtModuleUrl = (module: string): string => {
  const url = new URL(module, DIST_URL);
  if (!fs.existsSync(fileURLToPath(url))) {
    throw Error(`${q(fileURLToPath(url))} does not exist; run "npm run build" first`);
  }
  return url.href;
};
harden(builtModuleUrl);

/**
 * The env handed to a caplet: only the listed names, only non-blank
 * strings. The daemon rejects `undefined` values, and `-E LAL_HOST=$LAL_HOST`
 * with the shell variable unset gives '' (which fae treats as unset anyway).
 */
export const pickEnv = (env: Env, names: readonly string[]): Record<string, string> => {
  const picked: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    if (typeof value === 'string' && value.trim() !== '') picked[name] = value;
  }
  return harden(picked);
};
harden(pickEnv);

export interface FaeSetupConfig {
  /** What fae's caplet receives as env. Holds the token: never print it. */
  readonly env: Readonly<Record<string, string>>;
  /** A line that is safe to print: provider kind, model and host. */
  readonly summary: string;
}

/**
 * Reads and checks fae's settings exactly as fae will at startup, so that a
 * mistake (Anthropic without a token, a bad URL, a non-numeric limit) stops
 * the script before anything is created.
 */
export const readFaeSetupConfig = (env: Env): FaeSetupConfig => {
  const forwarded = pickEnv(env, FAE_ENV_NAMES);
  const provider = readProviderConfig(forwarded);
  readFaeConfig(forwarded);
  return harden({ env: forwarded, summary: describeProviderConfig(provider) });
};
harden(readFaeSetupConfig);

/**
 * The root for the filesystem tools: FAE_CWD, resolved against the
 * directory the script runs in (the daemon's own working directory is
 * somewhere else), or that directory itself when FAE_CWD is unset.
 */
/**
 * The directory the user ran the command from. `npm run` starts scripts in
 * the package directory and records where the user actually was in
 * INIT_CWD; that is the directory they mean.
 */
export const invocationDirectory = (env: Env) => env.INIT_CWD || process.cwd();
harden(invocationDirectory);

export const readFsToolsRoot = (env: Env, cwd: string = invocationDirectory(env)): string => {
  const configured = env.FAE_CWD?.trim();
  const root = path.resolve(cwd, configured || '.');
  // Throws a clear error if the directory cannot serve as a root.
  return makeFsRoot(root).root;
};
harden(readFsToolsRoot);

/**
 * Creates each tool caplet in the host's inventory under its pet name,
 * unless that name is already bound. Returns one report line per tool.
 */
export const provideToolCaplets = async (
  host: HostRef,
  tools: readonly ToolCaplet[],
  env: Readonly<Record<string, string>> = {},
): Promise<string[]> => {
  const specifiers = tools.map(tool => builtModuleUrl(tool.module));
  // Independent tools: every check and creation goes out at once.
  return Promise.all(
    tools.map(async ({ petName }, i) => {
      if (await E(host).has(petName)) {
        return `${petName}: already present, left as it is`;
      }
      await E(host).makeUnconfined(WORKER_NAME, specifiers[i], {
        resultName: petName,
        env,
      });
      return `${petName}: created`;
    }),
  );
};
harden(provideToolCaplets);

/**
 * Provisions fae: the guest (with `introduced` host names given to it under
 * the same names, which fae moves into its tools/ directory at startup) and
 * the caplet running agent.js with the guest's powers. Each part is created
 * only if its name is unbound. Returns report lines.
 */
export const provideFae = async (
  host: HostRef,
  config: FaeSetupConfig,
  introduced: readonly string[] = [],
): Promise<string[]> => {
  const agentUrl = builtModuleUrl('agent.js');
  const lines: string[] = [];
  const [hasGuest, hasAgent, hasController, isPinned] = await Promise.all([
    E(host).has(FAE_GUEST_NAME),
    E(host).has(FAE_AGENT_NAME),
    E(host).has(FAE_CONTROLLER_NAME),
    E(host).has(PINS_DIRECTORY, FAE_CONTROLLER_NAME),
  ]);
  if (hasGuest) {
    // makeUnconfined with an unbound powersName would quietly make a new,
    // empty guest for fae instead of using this one.
    if (!hasAgent) {
      throw Error(
        `${q(FAE_GUEST_NAME)} exists but ${q(FAE_AGENT_NAME)} does not, so fae's powers cannot be found; remove ${q(FAE_GUEST_NAME)} (or use a fresh daemon) and run this again`,
      );
    }
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
  if (hasController) {
    lines.push(
      `${FAE_CONTROLLER_NAME}: already running, left as it is (to change its settings, cancel and remove ${FAE_CONTROLLER_NAME}, then run this again)`,
    );
  } else {
    await E(host).makeUnconfined(WORKER_NAME, agentUrl, {
      powersName: FAE_AGENT_NAME,
      resultName: FAE_CONTROLLER_NAME,
      env: config.env,
    });
    lines.push(`${FAE_CONTROLLER_NAME}: fae started with ${config.summary}`);
  }
  if (isPinned) {
    lines.push(`${FAE_CONTROLLER_NAME}: already pinned`);
  } else {
    // Wait for fae's first start to finish first: the upstream daemon can
    // collect a directory being made (fae's tools/) when another call's
    // collection pass lands in the middle, and this copy is such a call.
    await withTimeout(
      E(E(host).lookup(FAE_CONTROLLER_NAME) as Promise<FaeController>).whenStarted(),
      START_WAIT_MS,
      () => 'fae did not finish starting',
    ).catch(() => {});
    // The daemon revives what PINS holds when it starts; without this, fae
    // would stay asleep after `endo restart` until someone looked it up.
    await E(host).copy([FAE_CONTROLLER_NAME], [PINS_DIRECTORY, FAE_CONTROLLER_NAME]);
    lines.push(`${FAE_CONTROLLER_NAME}: pinned, so fae starts again with the daemon`);
  }
  return lines;
};
harden(provideFae);

/** What a script returns: `endo run` prints it. */
export const formatReport = (title: string, lines: readonly string[]) =>
  [title, ...lines.map(line => `  ${line}`)].join('\n');
harden(formatReport);

// src/provisioning/: what the setup scripts (setup*.ts) do to a host. It
// imports src/agent and the layers below (scripts/check-imports.mjs).
//
// This module holds what the scripts share: the tool modules and the
// configuration they forward (read and checked once, before anything is
// created). fae-names.ts gives the names a fae is provisioned under, from
// FAE_NAME; system-prompt-file.ts reads FAE_SYSTEM_PROMPT_FILE and
// auth-token.ts LAL_AUTH_TOKEN_FILE, on the host. host-state.ts reads the host
// (its dialect and names) before anything changes; tool-caplets.ts and
// fae-caplet.ts make the caplets. The scripts run in the `endo run` CLI
// process, with the host as `--powers AGENT`; `-E KEY=VALUE` pairs land in
// that process's process.env and reach caplets only through the `env` we
// pass to makeUnconfined (../shared/spec/endo-guest-api.md §3).
//
// Re-running a script must neither fail nor duplicate: every step is
// skipped when its name is already bound. A second provideGuest with
// introduced names throws and a second makeUnconfined under the same result
// name starts a second instance (§2.5, §2.1), so neither is ever called for
// a name that exists.
import fs from 'node:fs';
import process from 'node:process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { q } from '@endo/errors';
import { describeProviderConfig, readProviderConfig } from '../../providers/config.js';
import { readFaeConfig } from '../agent/config.js';
import { makeFsRoot } from '../tool-kit/fs-root.js';
import { type FaeNames, readFaeNames } from './fae-names.js';
import type { Env } from './env.js';

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

/**
 * The settings fae reads from its env (providers/config.ts,
 * src/agent/config.ts): every one the configuration reference (docs/configuration.md) lists,
 * except those the scripts themselves read (LAL_AUTH_TOKEN_FILE,
 * FAE_SYSTEM_PROMPT_FILE, FAE_CWD).
 */
export const FAE_ENV_NAMES: readonly string[] = harden([
  'FAE_NAME',
  'FAE_SYSTEM_PROMPT',
  'LAL_HOST',
  'LAL_MODEL',
  'LAL_AUTH_TOKEN',
  'LAL_PROVIDER',
  'LAL_MAX_TOKENS',
  'LAL_MAX_MESSAGES',
  'LAL_MAX_RETRIES',
  'LAL_TIMEOUT_MS',
  'LAL_FIRST_TOKEN_MS',
  'LAL_STALL_MS',
  'FAE_MAX_ITERATIONS',
  'FAE_TOOL_TIMEOUT_MS',
  'FAE_PROBE_TIMEOUT_MS',
  'FAE_CONCURRENT_TURNS',
  'FAE_PROGRESS_AFTER_MS',
  'FAE_EDITABLE_TURNS',
  'FAE_EDITABLE_MS',
  'FAE_PARALLEL_TOOLS',
  'FAE_AUTO_DISMISS',
  'FAE_CONTEXT_TOKENS',
  'FAE_TOOL_TOKENS',
  'FAE_MAX_TRANSCRIPT',
  'FAE_HELD_CONVERSATIONS',
  'FAE_TOOL_DISCOVERY',
  'FAE_BUILTINS',
  'FAE_BUDGET_TOKENS',
  'FAE_BUDGET_HOST',
  'FAE_TURNS_PER_MINUTE',
  'FAE_PAUSE_MS',
  'FAE_MAX_TOOL_RESULT_CHARS',
  'FAE_DEBUG',
  'FAE_KEEP_ALIVE',
  'FAE_PRICES',
  'FAE_APPROVE',
  'FAE_APPROVAL_TIMEOUT_MS',
  'FAE_EVALUATE',
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
  list(...path: string[]): readonly string[];
  identify(...path: string[]): string | undefined;
  remove(...path: string[]): void;
  cancel(nameOrPath: string | readonly string[], reason?: Error): void;
}

export type HostRef = HostPowers | PromiseLike<HostPowers>;

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
  /** The host-side names of the fae FAE_NAME names. */
  readonly names: FaeNames;
  /** What fae's caplet receives as env. Holds the token: never print it. */
  readonly env: Readonly<Record<string, string>>;
  /** A line that is safe to print: provider kind, model and host. */
  readonly summary: string;
}

/**
 * Reads and checks fae's settings exactly as fae will at startup, so that a
 * mistake (Anthropic without a token, a bad URL, a non-numeric limit, a
 * name that cannot be a fae's) stops the script before anything is created.
 */
export const readFaeSetupConfig = (env: Env): FaeSetupConfig => {
  const forwarded = pickEnv(env, FAE_ENV_NAMES);
  const names = readFaeNames(forwarded, [...EXAMPLE_TOOLS, ...FS_TOOLS].map(tool => tool.petName));
  const provider = readProviderConfig(forwarded);
  readFaeConfig(forwarded);
  // Without LAL_HOST or LAL_PROVIDER fae asks its host (llm-settings.ts).
  const summary =
    forwarded.LAL_HOST === undefined && forwarded.LAL_PROVIDER === undefined
      ? `no LLM named: ${names.guest} sends you a settings form (May and August daemons; answer it in the Endo Chat UI), or uses the ${describeProviderConfig(provider)} (February)`
      : describeProviderConfig(provider);
  return harden({ names, env: forwarded, summary });
};
harden(readFaeSetupConfig);

/**
 * The directory the user ran the command from. `npm run` starts scripts in
 * the package directory and records where the user actually was in
 * INIT_CWD; that is the directory they mean.
 */
export const invocationDirectory = (env: Env) => env.INIT_CWD || process.cwd();
harden(invocationDirectory);

/**
 * The root for the filesystem tools: FAE_CWD, resolved against the
 * directory the script runs in (the daemon's own working directory is
 * somewhere else), or that directory itself when FAE_CWD is unset.
 */
export const readFsToolsRoot = (env: Env, cwd: string = invocationDirectory(env)): string => {
  const configured = env.FAE_CWD?.trim();
  const root = path.resolve(cwd, configured || '.');
  // Throws a clear error if the directory cannot serve as a root.
  return makeFsRoot(root).root;
};
harden(readFsToolsRoot);

/** What a script returns: `endo run` prints it. */
export const formatReport = (title: string, lines: readonly string[]) =>
  [title, ...lines.map(line => `  ${line}`)].join('\n');
harden(formatReport);

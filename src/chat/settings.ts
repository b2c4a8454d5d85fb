// The chat's settings, read and checked once before anything starts: what
// the setup scripts forward to fae (src/provisioning.ts), the LLM settings
// for the reachability check, fae's own limits, and the filesystem tools'
// root.
import { readProviderConfig, type ProviderConfig } from '../../providers/config.js';
import { MAX_RETRY_AFTER_MS } from '../../providers/retry-policy.js';
import { readFaeConfig, type FaeConfig } from '../agent/config.js';
import {
  invocationDirectory,
  readFaeSetupConfig,
  readFsToolsRoot,
  type FaeSetupConfig,
} from '../provisioning/provisioning.js';
import type { Env } from '../provisioning/env.js';
import type { ChatOptions } from './options.js';

/** Slack on top of fae's own bounds, for the work between its calls. */
const QUIET_MARGIN_MS = 5_000;

export interface Settings {
  readonly setup: FaeSetupConfig;
  readonly provider: ProviderConfig;
  readonly fae: FaeConfig;
  readonly root: string;
}

/** The settings as fae will read them; throws a clear error for any mistake. */
export const readSettings = (env: Env, options: ChatOptions): Settings => {
  const withRoot: Env = options.root === undefined ? env : { ...env, FAE_CWD: options.root };
  const setup = readFaeSetupConfig(withRoot);
  const root = readFsToolsRoot(withRoot, invocationDirectory(env));
  return harden({
    setup,
    provider: readProviderConfig(setup.env),
    fae: readFaeConfig(setup.env),
    root,
  });
};

/**
 * How long end of input waits without hearing anything from fae. Every
 * model call (its attempts, and the waits between them) and every tool
 * call fae makes has its own bound; silence longer than the longest of
 * them means no answer is coming (fae dismissed a message without one).
 */
export const quietBound = ({ provider, fae }: Settings) =>
  Math.max(
    provider.timeoutMs * (provider.maxRetries + 1) + provider.maxRetries * MAX_RETRY_AFTER_MS,
    fae.toolTimeoutMs,
  ) + QUIET_MARGIN_MS;

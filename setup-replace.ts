// endo run --UNCONFINED dist/setup-replace.js --powers AGENT -E LAL_HOST=… [-E LAL_MODEL=…]
//   [-E LAL_AUTH_TOKEN_FILE=<a file holding the API key>] (or LAL_AUTH_TOKEN in the environment)
//   [-E FAE_NAME=<the fae to replace, when not fae>]
// Replaces the running fae with one that has the settings given: the old
// controller is unpinned, cancelled and removed, a new one is started for
// the same guest (its directory, tools/ and unanswered mail stay) and
// pinned. Only the settings given count: those not given fall back to
// their defaults, as for setup. Only the fae FAE_NAME names is replaced.
import process from 'node:process';
import { type HostRef, formatReport, readFaeSetupConfig } from './src/provisioning/provisioning.js';
import type { Env } from './src/provisioning/env.js';
import { inspectHost } from './src/provisioning/host-state.js';
import { type SetupInvocation, processInvocation, resolveAuthToken } from './src/provisioning/auth-token.js';
import { resolveSystemPromptFile } from './src/provisioning/system-prompt-file.js';
import { replaceFae } from './src/provisioning/fae-caplet.js';

export const setupReplace = async (
  host: HostRef,
  env: Env = process.env,
  invocation: SetupInvocation = processInvocation(),
) => {
  const config = readFaeSetupConfig(resolveSystemPromptFile(resolveAuthToken(env, invocation)));
  const state = await inspectHost(host, config.names);
  return formatReport('setup-replace:', await replaceFae(host, config, state));
};
harden(setupReplace);

/** Called by `endo run` with the host (--powers AGENT). */
export const main = (agent: HostRef) => setupReplace(agent);
harden(main);

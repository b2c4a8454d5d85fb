// endo run --UNCONFINED dist/setup.js --powers AGENT -E LAL_HOST=… [-E LAL_MODEL=…]
//   [-E LAL_AUTH_TOKEN_FILE=<a file holding the API key>] (or LAL_AUTH_TOKEN in the environment)
//   [-E FAE_NAME=<another name, for a second fae>] [-E FAE_SYSTEM_PROMPT_FILE=<its instructions>]
// Provisions fae with no tools: the guest `fae` (powers `profile-for-fae`)
// and the caplet `controller-for-fae` running agent.js in the host's main
// worker, pinned; with FAE_NAME=helper, `helper`, `profile-for-helper` and
// `controller-for-helper` instead, beside any other fae. Works on every
// daemon generation (feb, may, aug).
import process from 'node:process';
import { type HostRef, formatReport, readFaeSetupConfig } from './src/provisioning/provisioning.js';
import type { Env } from './src/provisioning/env.js';
import { inspectHost } from './src/provisioning/host-state.js';
import { type SetupInvocation, processInvocation, resolveAuthToken } from './src/provisioning/auth-token.js';
import { resolveSystemPromptFile } from './src/provisioning/system-prompt-file.js';
import { provideFae } from './src/provisioning/fae-caplet.js';

export const setup = async (
  host: HostRef,
  env: Env = process.env,
  invocation: SetupInvocation = processInvocation(),
) => {
  const config = readFaeSetupConfig(resolveSystemPromptFile(resolveAuthToken(env, invocation)));
  const state = await inspectHost(host, config.names);
  return formatReport('setup:', await provideFae(host, config, [], state));
};
harden(setup);

/** Called by `endo run` with the host (--powers AGENT). */
export const main = (agent: HostRef) => setup(agent);
harden(main);

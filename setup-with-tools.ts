// endo run --UNCONFINED dist/setup-with-tools.js --powers AGENT -E LAL_HOST=… [-E LAL_MODEL=…]
//   [-E LAL_AUTH_TOKEN_FILE=<a file holding the API key>] (or LAL_AUTH_TOKEN in the environment)
//   [-E FAE_NAME=<another name, for a second fae>] [-E FAE_SYSTEM_PROMPT_FILE=<its instructions>]
// Creates the example tool caplets in the host's inventory, then provisions
// fae with them introduced under the same names; fae moves them into its
// tools/ directory when it starts.
import process from 'node:process';
import {
  EXAMPLE_TOOLS,
  type HostRef,
  formatReport,
  readFaeSetupConfig,
} from './src/provisioning/provisioning.js';
import type { Env } from './src/provisioning/env.js';
import { inspectHost } from './src/provisioning/host-state.js';
import { type SetupInvocation, processInvocation, resolveAuthToken } from './src/provisioning/auth-token.js';
import { resolveSystemPromptFile } from './src/provisioning/system-prompt-file.js';
import { provideToolCaplets } from './src/provisioning/tool-caplets.js';
import { checkFaeGuest, provideFae } from './src/provisioning/fae-caplet.js';

export const setupWithTools = async (
  host: HostRef,
  env: Env = process.env,
  invocation: SetupInvocation = processInvocation(),
) => {
  // The settings and every name both steps need are checked before the
  // tools are made, so a bad setting or a missing name creates nothing.
  const config = readFaeSetupConfig(resolveSystemPromptFile(resolveAuthToken(env, invocation)));
  const state = await inspectHost(host, config.names);
  checkFaeGuest(state);
  const toolLines = await provideToolCaplets(host, EXAMPLE_TOOLS, {}, state);
  const names = EXAMPLE_TOOLS.map(tool => tool.petName);
  const faeLines = await provideFae(host, config, names, state);
  return formatReport('setup-with-tools:', [...toolLines, ...faeLines]);
};
harden(setupWithTools);

/** Called by `endo run` with the host (--powers AGENT). */
export const main = (agent: HostRef) => setupWithTools(agent);
harden(main);

// endo run --UNCONFINED dist/setup-with-tools.js --powers AGENT -E LAL_HOST=… [-E LAL_MODEL=…] [-E LAL_AUTH_TOKEN=…]
// Creates the example tool caplets in the host's inventory, then provisions
// fae with them introduced under the same names; fae moves them into its
// tools/ directory when it starts.
import process from 'node:process';
import {
  EXAMPLE_TOOLS,
  type Env,
  type HostRef,
  formatReport,
  provideFae,
  provideToolCaplets,
  readFaeSetupConfig,
} from './src/provisioning/provisioning.js';

export const setupWithTools = async (host: HostRef, env: Env = process.env) => {
  // Checked before the tools are made, so a bad setting creates nothing.
  const config = readFaeSetupConfig(env);
  const toolLines = await provideToolCaplets(host, EXAMPLE_TOOLS);
  const names = EXAMPLE_TOOLS.map(tool => tool.petName);
  const faeLines = await provideFae(host, config, names);
  return formatReport('setup-with-tools:', [...toolLines, ...faeLines]);
};
harden(setupWithTools);

/** Called by `endo run` with the host (--powers AGENT). */
export const main = (agent: HostRef) => setupWithTools(agent);
harden(main);

// endo run --UNCONFINED dist/setup.js --powers AGENT -E LAL_HOST=… [-E LAL_MODEL=…] [-E LAL_AUTH_TOKEN=…]
// Provisions fae with no tools: the guest `fae` (powers `profile-for-fae`)
// and the caplet `controller-for-fae` running agent.js in the MAIN worker.
import process from 'node:process';
import {
  type Env,
  type HostRef,
  formatReport,
  provideFae,
  readFaeSetupConfig,
} from './src/provisioning/provisioning.js';

export const setup = async (host: HostRef, env: Env = process.env) => {
  const config = readFaeSetupConfig(env);
  return formatReport('setup:', await provideFae(host, config));
};
harden(setup);

/** Called by `endo run` with the host (--powers AGENT). */
export const main = (agent: HostRef) => setup(agent);
harden(main);

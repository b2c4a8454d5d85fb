// endo run --UNCONFINED dist/setup-tools.js --powers AGENT
// Creates the example tool caplets (greet-tool, math-tool, timestamp-tool)
// in the host's inventory, ready to be sent to fae in a message.
import { EXAMPLE_TOOLS, type HostRef, formatReport } from './src/provisioning/provisioning.js';
import { provideToolCaplets } from './src/provisioning/tool-caplets.js';

export const setupTools = async (host: HostRef) =>
  formatReport('setup-tools:', await provideToolCaplets(host, EXAMPLE_TOOLS));
harden(setupTools);

/** Called by `endo run` with the host (--powers AGENT). */
export const main = (agent: HostRef) => setupTools(agent);
harden(main);

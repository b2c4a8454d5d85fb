// endo run --UNCONFINED dist/setup-fs-tools.js --powers AGENT [-E FAE_CWD=/path/to/project]
// Creates the filesystem tool caplets (read-file, write-file, edit-file,
// edit, list-dir, run-command) in the host's inventory, each rooted at FAE_CWD:
// resolved here, against the directory `endo run` (or `npm run`) is started
// in, which is also the default; the daemon's working directory is elsewhere.
// run-command is a shell with the worker's authority; see its help().
import process from 'node:process';
import {
  FS_TOOLS,
  type HostRef,
  formatReport,
  invocationDirectory,
  readFsToolsRoot,
} from './src/provisioning/provisioning.js';
import type { Env } from './src/provisioning/env.js';
import { provideToolCaplets } from './src/provisioning/tool-caplets.js';

export const setupFsTools = async (
  host: HostRef,
  env: Env = process.env,
  cwd: string = invocationDirectory(env),
) => {
  const root = readFsToolsRoot(env, cwd);
  const lines = await provideToolCaplets(host, FS_TOOLS, harden({ FAE_CWD: root }));
  return formatReport(`setup-fs-tools (root ${root}):`, lines);
};
harden(setupFsTools);

/** Called by `endo run` with the host (--powers AGENT). */
export const main = (agent: HostRef) => setupFsTools(agent);
harden(main);

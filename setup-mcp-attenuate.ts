// endo run --UNCONFINED dist/setup-mcp-attenuate.js --powers AGENT \
//   -E FAE_MCP_NAME=files -E FAE_MCP_TOOL=write-file -E FAE_MCP_COPY=write-notes \
//   -E 'FAE_MCP_BOUNDS={"under":{"path":"/srv/project/notes"}}'
// Makes an attenuated copy of one MCP tool: its arguments pinned or bounded,
// checked by the bridge before each call. See docs/mcp.md.
import process from 'node:process';
import { type HostRef, formatReport } from './src/provisioning/provisioning.js';
import type { Env } from './src/provisioning/env.js';
import { attenuateMcpTool } from './src/provisioning/mcp-tools.js';

export const setupMcpAttenuate = async (host: HostRef, env: Env = process.env) =>
  formatReport('setup-mcp-attenuate:', await attenuateMcpTool(host, env));
harden(setupMcpAttenuate);

/** Called by `endo run` with the host (--powers AGENT). */
export const main = (agent: HostRef) => setupMcpAttenuate(agent);
harden(main);

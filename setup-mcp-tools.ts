// endo run --UNCONFINED dist/setup-mcp-tools.js --powers AGENT \
//   -E FAE_MCP_NAME=files -E FAE_MCP_COMMAND=npx -E 'FAE_MCP_ARGS=["@modelcontextprotocol/server-filesystem","/srv/project"]'
//   (or -E FAE_MCP_URL=https://host/mcp -E FAE_MCP_TOKEN_FILE=token.txt)
// Connects to one MCP server and makes one capability per tool it offers in
// the host's folder mcp-<name>/, ready to be mailed to fae. See docs/mcp.md.
import process from 'node:process';
import { type HostRef, formatReport } from './src/provisioning/provisioning.js';
import type { Env } from './src/provisioning/env.js';
import { setupMcpTools as provide } from './src/provisioning/mcp-tools.js';

export const setupMcpTools = async (host: HostRef, env: Env = process.env) =>
  formatReport('setup-mcp-tools:', await provide(host, env));
harden(setupMcpTools);

/** Called by `endo run` with the host (--powers AGENT). */
export const main = (agent: HostRef) => setupMcpTools(agent);
harden(main);

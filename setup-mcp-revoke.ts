// endo run --UNCONFINED dist/setup-mcp-revoke.js --powers AGENT -E FAE_MCP_NAME=files [-E FAE_MCP_TOOL=write-file]
// Revokes one MCP capability (and the copies made from it), or without
// FAE_MCP_TOOL the whole server; it takes effect at the next call, wherever
// the capability was mailed, and lasts across restarts. See docs/mcp.md.
import process from 'node:process';
import { type HostRef, formatReport } from './src/provisioning/provisioning.js';
import type { Env } from './src/provisioning/env.js';
import { revokeMcpTool } from './src/provisioning/mcp-tools.js';

export const setupMcpRevoke = async (host: HostRef, env: Env = process.env) =>
  formatReport('setup-mcp-revoke:', await revokeMcpTool(host, env));
harden(setupMcpRevoke);

/** Called by `endo run` with the host (--powers AGENT). */
export const main = (agent: HostRef) => setupMcpRevoke(agent);
harden(main);

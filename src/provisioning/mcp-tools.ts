// What setup-mcp-tools, setup-mcp-attenuate and setup-mcp-revoke do to a
// host. For the MCP server FAE_MCP_NAME=<name>:
//
//   mcp-<name>-bridge   the bridge caplet: the connection, any credential,
//                       the caretakers (src/mcp/bridge.ts); the host's only
//   mcp-<name>-keeper   a guest that is the bridge's powers: where it keeps
//                       its tool list and revocations across restarts
//   mcp-<name>/<tool>   one capability caplet per MCP tool (and per
//                       attenuated copy), a FaeTool to mail to fae
//
// Every step is skipped when its name is bound, so running a script again
// creates only what is missing (a tool the server added since, say).
import fs from 'node:fs';
import path from 'node:path';
import { E } from '@endo/far';
import { q } from '@endo/errors';
import { SERVER_ENV_NAMES, describeServer, readServerConfig } from '../mcp/server-config.js';
import { parseBounds } from '../mcp/bounds.js';
import { isPetName } from '../daemon/pet-name.js';
import { type HostRef, builtModuleUrl, invocationDirectory, pickEnv } from './provisioning.js';
import type { Env } from './env.js';
import { type HostState, inspectHost } from './host-state.js';

// `any`: the host and the bridge are remote references.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

const BRIDGE_MODULE = 'src/mcp/bridge-caplet.js';
const CAPABILITY_MODULE = 'src/mcp/capability-caplet.js';

export interface McpNames {
  readonly bridge: string;
  readonly keeper: string;
  readonly folder: string;
}

export const mcpNamesFor = (server: string): McpNames =>
  harden({ bridge: `mcp-${server}-bridge`, keeper: `mcp-${server}-keeper`, folder: `mcp-${server}` });
harden(mcpNamesFor);

interface ToolListing {
  readonly name: string;
  readonly schemaName: string;
  readonly petName: string;
  readonly asksApproval: boolean;
}

/** The bridge's env: the server settings, a stdio server's directory made absolute. */
const bridgeEnv = (env: Env, cwd: string) => {
  const picked = pickEnv(env, SERVER_ENV_NAMES);
  const withCwd = picked.FAE_MCP_COMMAND === undefined ? picked : { ...picked, FAE_MCP_CWD: path.resolve(cwd, picked.FAE_MCP_CWD ?? '.') };
  const config = readServerConfig(withCwd);
  if (config.transport.kind === 'http' && config.transport.tokenFile !== undefined) {
    const tokenFile = path.resolve(cwd, config.transport.tokenFile);
    // Its presence is checked here; its content is read by the bridge alone.
    if (!fs.existsSync(tokenFile)) throw Error(`FAE_MCP_TOKEN_FILE names ${q(tokenFile)}, which does not exist; nothing was created`);
    return { config, env: harden({ ...withCwd, FAE_MCP_TOKEN_FILE: tokenFile }) };
  }
  return { config, env: harden(withCwd) };
};

const makeCapability = (host: Far, state: HostState, names: McpNames, petName: string, env: Record<string, string>) =>
  E(host).makeUnconfined(state.names.main, builtModuleUrl(CAPABILITY_MODULE), {
    powersName: names.bridge,
    resultName: [names.folder, petName],
    env: harden(env),
  });

/** Connects to the server and makes one capability per tool it offers. Returns the report lines. */
export const setupMcpTools = async (host: HostRef, env: Env, cwd: string = invocationDirectory(env)): Promise<string[]> => {
  const { config, env: capletEnv } = bridgeEnv(env, cwd);
  const names = mcpNamesFor(config.name);
  const bridgeUrl = builtModuleUrl(BRIDGE_MODULE);
  builtModuleUrl(CAPABILITY_MODULE);
  const state = await inspectHost(host);
  const lines: string[] = [];
  if (state.bound.has(names.bridge)) {
    lines.push(`${names.bridge}: already present, left as it is (remove it to change the server's settings)`);
  } else {
    await E(host).makeUnconfined(state.names.main, bridgeUrl, { powersName: names.keeper, resultName: names.bridge, env: capletEnv });
    lines.push(`${names.bridge}: created for ${describeServer(config)}`);
  }
  if (!state.bound.has(names.folder)) await E(host as Far).makeDirectory(names.folder);
  const bridge: Far = E(host).lookup(names.bridge);
  const tools = (await E(bridge).tools()) as readonly ToolListing[];
  const present = new Set((await E(host).list(names.folder)) as readonly string[]);
  const made = await Promise.all(
    tools.map(async ({ name, schemaName, petName, asksApproval }) => {
      const about = `${q(name)} as ${schemaName}, ${asksApproval ? 'asks the host before each call' : 'runs unasked (read-only)'}`;
      if (present.has(petName)) return `${names.folder}/${petName}: already present (${about})`;
      await makeCapability(host, state, names, petName, { FAE_MCP_TOOL: name });
      return `${names.folder}/${petName}: created (${about})`;
    }),
  );
  return [...lines, ...made];
};
harden(setupMcpTools);

const readServerName = (env: Env) => {
  const server = env.FAE_MCP_NAME;
  if (server === undefined || !isPetName(server)) throw Error(`FAE_MCP_NAME must name a server set up with setup-mcp-tools, not ${q(server)}`);
  return mcpNamesFor(server);
};

/** The MCP name of the tool whose capability is `petName` in the folder. */
const toolOfPetName = async (bridge: Far, names: McpNames, petName: string) => {
  const tools = (await E(bridge).tools()) as readonly ToolListing[];
  const tool = tools.find(listed => listed.petName === petName);
  if (tool === undefined) {
    throw Error(`${q(`${names.folder}/${petName}`)} is not a tool the server offers (it offers ${q(tools.map(listed => listed.petName))}); nothing was created`);
  }
  return tool.name;
};

/**
 * Makes an attenuated copy of a tool: FAE_MCP_TOOL (its pet name in the
 * folder), FAE_MCP_COPY (the copy's pet name, also its schema name),
 * FAE_MCP_BOUNDS (JSON, src/mcp/bounds.ts).
 */
export const attenuateMcpTool = async (host: HostRef, env: Env): Promise<string[]> => {
  const names = readServerName(env);
  const { FAE_MCP_TOOL: petName = '', FAE_MCP_COPY: copy = '', FAE_MCP_BOUNDS: boundsText = '' } = env;
  if (!isPetName(copy) || copy.length > 64) {
    throw Error(`FAE_MCP_COPY must name the copy in lowercase letters, digits and "-" (at most 64; it is also the name the model calls), not ${q(copy)}`);
  }
  // A mistake in the bounds stops the script before anything is made.
  parseBounds(boundsText);
  const state = await inspectHost(host);
  if (!state.bound.has(names.bridge)) throw Error(`There is no ${q(names.bridge)}; run setup-mcp-tools first`);
  if ((await E(host).list(names.folder)).includes(copy)) throw Error(`${q(`${names.folder}/${copy}`)} is taken; choose another FAE_MCP_COPY`);
  const tool = await toolOfPetName(E(host).lookup(names.bridge), names, petName);
  await makeCapability(host, state, names, copy, { FAE_MCP_TOOL: tool, FAE_MCP_COPY: copy, FAE_MCP_BOUNDS: boundsText });
  return [`${names.folder}/${copy}: created, a copy of ${names.folder}/${petName} bounded by ${boundsText}`];
};
harden(attenuateMcpTool);

/** Revokes one capability (FAE_MCP_TOOL, its pet name in the folder) or, without it, the whole server. */
export const revokeMcpTool = async (host: HostRef, env: Env): Promise<string[]> => {
  const names = readServerName(env);
  const petName = env.FAE_MCP_TOOL ?? '';
  if (!(await E(host).has(names.bridge))) throw Error(`There is no ${q(names.bridge)}; nothing to revoke`);
  const bridge: Far = E(host).lookup(names.bridge);
  if (petName === '') {
    await E(bridge).revokeAll();
    return [`${names.bridge}: revoked, with every capability made from it`];
  }
  const capability = await E(host).lookup([names.folder, petName]);
  await E(bridge).revoke(capability);
  return [`${names.folder}/${petName}: revoked`];
};
harden(revokeMcpTool);

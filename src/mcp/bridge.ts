// The bridge: one MCP server's connection, its current tool list, and the
// caretakers of the capabilities made from it. The host holds the bridge
// (its control facet); fae holds only capabilities, which have no way
// back to it. Each capability is made by a caplet formula of the host's
// (capability-caplet.ts) that asks the bridge for it, so after a restart
// the same formulas ask the new bridge, which reconnects on first use.
import { makeExo } from '@endo/exo';
import { M } from '@endo/patterns';
import { q } from '@endo/errors';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../logging/log.js';
import { makeCaretaker, type Caretaker } from './caretaker.js';
import { makeToolCapability, type ToolTarget } from './capability.js';
import { parseBounds } from './bounds.js';
import { nameTools, type ToolNaming } from './tool-names.js';
import { needsApprovalFor } from './offered-schema.js';
import type { Session, SessionHooks } from './session.js';
import type { BridgeState, StateKeeper } from './bridge-state.js';
import { describeServer, type ServerConfig } from './server-config.js';

/** A JSON.stringify replacer writing every object's keys in order. */
const sortedKeys = (_key: string, value: unknown) =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : value;

export const McpBridgeInterface = M.interface('McpBridge', {
  help: M.call().returns(M.string()),
  tools: M.call().returns(M.promise()),
  capability: M.call(M.string()).optional(M.string(), M.string()).returns(M.promise()),
  revoke: M.call(M.remotable('capability')).returns(M.promise()),
  revokeAll: M.call().returns(M.promise()),
  status: M.call().returns(M.promise()),
});
harden(McpBridgeInterface);

interface Entry {
  readonly tool: Tool;
  readonly naming: ToolNaming;
}

export interface BridgeOptions {
  readonly config: ServerConfig;
  readonly logger: Logger;
  readonly keeper: StateKeeper;
  /** Makes the session; `hooks` are the bridge's. */
  readonly openSession: (hooks: SessionHooks) => Session;
}

const SERVER_KEY = 'server';
const toolKey = (mcpName: string) => `tool:${mcpName}`;
const copyKey = (petName: string) => `copy:${petName}`;

export const makeMcpBridge = ({ config, logger, keeper, openSession }: BridgeOptions) => {
  const server = `${q(config.name)} (${describeServer(config)})`;
  let catalog = new Map<string, Entry>();
  let state: BridgeState = harden({ tools: undefined, revoked: [], all: false });
  const caretakers = new Map<string, Caretaker<unknown>>();
  const keys = new WeakMap<object, string>();

  const setTools = (tools: readonly Tool[]) => {
    const namings = nameTools(tools.map(tool => tool.name));
    catalog = new Map(tools.map((tool, i) => [tool.name, harden({ tool, naming: namings[i] })]));
    state = harden({ ...state, tools });
  };
  const save = () => keeper.save(state).catch(error => logger.warn('mcp-state-not-saved', { server: config.name, error }));

  /**
   * The same tools, whatever the order of their keys: a list read back from
   * the daemon's store comes with its keys sorted, and is no change.
   */
  const sameJson = (a: unknown, b: unknown) => JSON.stringify(a, sortedKeys) === JSON.stringify(b, sortedKeys);

  const onToolsChanged = (tools: readonly Tool[]) => {
    const before = catalog;
    setTools(tools);
    const added = tools.filter(tool => !before.has(tool.name)).map(tool => tool.name);
    const removed = [...before.keys()].filter(name => !catalog.has(name));
    const changed = tools
      .filter(tool => before.has(tool.name) && !sameJson(before.get(tool.name)?.tool, tool))
      .map(tool => tool.name);
    // The same tools, in another order or read back from the store: nothing to say or save.
    if (added.length + removed.length + changed.length === 0) return;
    logger.event('mcp-tools-changed', { server: config.name, added: added.join(','), removed: removed.join(','), changed: changed.join(',') });
    save().catch(() => {});
  };

  // Loaded once; every method that needs the state waits for it.
  const loaded = keeper.load().then(stored => {
    state = stored;
    if (stored.tools !== undefined) setTools(stored.tools);
    const onReconnected = () => {
      refresh().catch(error => logger.warn('mcp-tools-refresh-failed', { server: config.name, error }));
    };
    return openSession({ onToolsChanged, onReconnected, connectedBefore: stored.tools !== undefined });
  });

  const refresh = async (): Promise<void> => {
    const session = await loaded;
    // A revoked server is never connected to again.
    serverCaretaker().use();
    const before = state.tools;
    const tools = await session.listTools();
    if (!sameJson(before, tools)) {
      if (before === undefined) {
        setTools(tools);
        save().catch(() => {});
      } else onToolsChanged(tools);
    }
  };

  const revokedReason = (key: string) =>
    key === SERVER_KEY
      ? `The host revoked the MCP server ${server}; its tools can no longer be called`
      : key.startsWith('copy:')
        ? `The host revoked this tool (${key.slice('copy:'.length)}); it can no longer be called`
        : // Also what a copy of it says: the tool it stands on is gone, under the server's own name for it.
          `The host revoked the tool ${key.slice('tool:'.length)} of the MCP server ${server} (this tool, or the one it is a copy of); it can no longer be called`;

  /** The caretaker for `key`, made once, revoked at once if the host revoked it before. */
  const caretakerFor = <T>(key: string, reach: () => T): Caretaker<T> => {
    let caretaker = caretakers.get(key) as Caretaker<T> | undefined;
    if (caretaker === undefined) {
      caretaker = makeCaretaker(reach, revokedReason(key));
      if (key === SERVER_KEY ? state.all : state.revoked.includes(key)) caretaker.revoke();
      caretakers.set(key, caretaker as Caretaker<unknown>);
    }
    return caretaker;
  };

  const targetFor = (mcpName: string, session: Session): ToolTarget => {
    const current = () => {
      const entry = catalog.get(mcpName);
      if (entry === undefined) {
        throw Error(`The MCP server ${server} no longer offers the tool ${q(mcpName)}; the host can run setup-mcp-tools again to see what it offers`);
      }
      return entry;
    };
    return harden({
      current,
      server,
      call: (args, signal) => session.callTool(current().tool.name, args, { signal, timeoutMs: config.callTimeoutMs }),
    });
  };

  const serverCaretaker = () => caretakerFor(SERVER_KEY, () => undefined);

  const baseCaretaker = (mcpName: string, session: Session) => {
    const onServer = serverCaretaker();
    const target = targetFor(mcpName, session);
    return caretakerFor(toolKey(mcpName), () => {
      onServer.use();
      return target;
    });
  };

  const describeTools = () =>
    harden(
      [...catalog.values()].map(({ tool, naming }) => ({
        name: tool.name,
        schemaName: naming.schemaName,
        petName: naming.petName,
        asksApproval: needsApprovalFor(tool),
      })),
    );

  return makeExo('McpBridge', McpBridgeInterface, {
    help: () =>
      `The MCP bridge to the server ${server}: it keeps the connection and any credential. tools() lists what the server offers; capability(name) makes a tool's capability, capability(name, copyName, boundsJson) an attenuated copy; revoke(capability) and revokeAll() cut them off at their next call.`,
    tools: async () => {
      await refresh();
      return describeTools();
    },
    capability: async (mcpName: string, copyName?: string, boundsJson?: string) => {
      const session = await loaded;
      if (state.tools === undefined) await refresh();
      if (!catalog.has(mcpName) && !state.revoked.includes(toolKey(mcpName))) {
        // Asked for a tool the stored list lacks: the server may have added it since.
        await refresh().catch(() => {});
      }
      const base = baseCaretaker(mcpName, session);
      if (copyName === undefined) {
        const capability = makeToolCapability(base);
        keys.set(capability, toolKey(mcpName));
        return capability;
      }
      const bounds = parseBounds(boundsJson ?? '{}');
      const copy = makeToolCapability(caretakerFor(copyKey(copyName), () => base.use()), { petName: copyName, bounds });
      keys.set(copy, copyKey(copyName));
      return copy;
    },
    revoke: async (capability: object) => {
      await loaded;
      const key = keys.get(capability);
      if (key === undefined) throw Error(`${q(capability)} is not a capability of the MCP bridge ${server}`);
      caretakers.get(key)?.revoke();
      if (!state.revoked.includes(key)) state = harden({ ...state, revoked: [...state.revoked, key] });
      logger.event('mcp-revoked', { server: config.name, capability: key });
      await save();
    },
    revokeAll: async () => {
      const session = await loaded;
      serverCaretaker().revoke();
      state = harden({ ...state, all: true });
      logger.event('mcp-revoked', { server: config.name, capability: SERVER_KEY });
      await save();
      await session.close();
    },
    status: async () => {
      await loaded;
      return harden({
        server: config.name,
        tools: catalog.size,
        revoked: [...state.revoked],
        serverRevoked: state.all,
      });
    },
  });
};
harden(makeMcpBridge);

export type McpBridge = ReturnType<typeof makeMcpBridge>;

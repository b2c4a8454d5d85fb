// The bridge: one MCP server's connection, its current tool list, and the
// caretakers of the capabilities made from it. The host holds the bridge
// (its control facet); fae holds only capabilities, which have no way
// back to it. Each capability is made by a caplet formula of the host's
// (capability-caplet.ts) that asks the bridge for it, so after a restart
// the same formulas ask the new bridge, which reconnects on first use.
import { makeExo } from '@endo/exo';
import { M } from '@endo/patterns';
import { q } from '@endo/errors';
import type { Logger } from '../logging/log.js';
import { makeCaretaker, type Caretaker } from './caretaker.js';
import { makeToolCapability, type ToolTarget } from './capability.js';
import { parseBounds } from './bounds.js';
import type { Session, SessionHooks } from './session.js';
import type { StateKeeper } from './bridge-state.js';
import { makeBridgeCatalog, type BridgeCatalog } from './bridge-catalog.js';
import { describeServer, type ServerConfig } from './server-config.js';

export const McpBridgeInterface = M.interface('McpBridge', {
  help: M.call().returns(M.string()),
  tools: M.call().returns(M.promise()),
  capability: M.call(M.string()).optional(M.string(), M.string()).returns(M.promise()),
  revoke: M.call(M.remotable('capability')).returns(M.promise()),
  revokeAll: M.call().returns(M.promise()),
  status: M.call().returns(M.promise()),
});
harden(McpBridgeInterface);

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

/** What a call through a revoked caretaker says. */
const revokedReason = (server: string, key: string) =>
  key === SERVER_KEY
    ? `The host revoked the MCP server ${server}; its tools can no longer be called`
    : key.startsWith('copy:')
      ? `The host revoked this tool (${key.slice('copy:'.length)}); it can no longer be called`
      : // Also what a copy of it says: the tool it stands on is gone, under the server's own name for it.
        `The host revoked the tool ${key.slice('tool:'.length)} of the MCP server ${server} (this tool, or the one it is a copy of); it can no longer be called`;

/**
 * The caretakers of the server, of each tool and of each copy, one per key,
 * each revoked at once if the host revoked it before; a tool's stands on
 * the server's, a copy's on its tool's.
 */
const makeCaretakers = (server: string, catalog: BridgeCatalog, callTimeoutMs: ServerConfig['callTimeoutMs']) => {
  const caretakers = new Map<string, Caretaker<unknown>>();
  const caretakerFor = <T>(key: string, reach: () => T): Caretaker<T> => {
    let caretaker = caretakers.get(key) as Caretaker<T> | undefined;
    if (caretaker === undefined) {
      caretaker = makeCaretaker(reach, revokedReason(server, key));
      if (key === SERVER_KEY ? catalog.isServerRevoked() : catalog.isRevoked(key)) caretaker.revoke();
      caretakers.set(key, caretaker as Caretaker<unknown>);
    }
    return caretaker;
  };
  const onServer = () => caretakerFor(SERVER_KEY, () => undefined);

  const targetFor = (mcpName: string, session: Session): ToolTarget => {
    const current = () => {
      const entry = catalog.entry(mcpName);
      if (entry === undefined) {
        throw Error(`The MCP server ${server} no longer offers the tool ${q(mcpName)}; the host can run setup-mcp-tools again to see what it offers`);
      }
      return entry;
    };
    return harden({
      current,
      server,
      call: (args, signal) => session.callTool(current().tool.name, args, { signal, timeoutMs: callTimeoutMs }),
    });
  };
  const onTool = (mcpName: string, session: Session) => {
    const target = targetFor(mcpName, session);
    return caretakerFor(toolKey(mcpName), () => {
      onServer().use();
      return target;
    });
  };
  const onCopy = (copyName: string, base: Caretaker<ToolTarget>) => caretakerFor(copyKey(copyName), () => base.use());
  return harden({ onServer, onTool, onCopy, revoke: (key: string) => caretakers.get(key)?.revoke() });
};

export const makeMcpBridge = ({ config, logger, keeper, openSession }: BridgeOptions) => {
  const server = `${q(config.name)} (${describeServer(config)})`;
  const catalog = makeBridgeCatalog({ config, logger, keeper });
  const caretakers = makeCaretakers(server, catalog, config.callTimeoutMs);
  const keys = new WeakMap<object, string>();

  // Loaded once; every method that needs the state waits for it.
  const loaded = catalog.load().then(connectedBefore => {
    const onReconnected = () => {
      refresh().catch(error => logger.warn('mcp-tools-refresh-failed', { server: config.name, error }));
    };
    return openSession({ onToolsChanged: catalog.changed, onReconnected, connectedBefore });
  });

  const refresh = async (): Promise<void> => {
    const session = await loaded;
    // A revoked server is never connected to again.
    caretakers.onServer().use();
    catalog.listed(await session.listTools());
  };

  return makeExo('McpBridge', McpBridgeInterface, {
    help: () =>
      `The MCP bridge to the server ${server}: it keeps the connection and any credential. tools() lists what the server offers; capability(name) makes a tool's capability, capability(name, copyName, boundsJson) an attenuated copy; revoke(capability) and revokeAll() cut them off at their next call.`,
    tools: async () => {
      await refresh();
      return catalog.describe();
    },
    capability: async (mcpName: string, copyName?: string, boundsJson?: string) => {
      const session = await loaded;
      if (!catalog.known()) await refresh();
      if (catalog.entry(mcpName) === undefined && !catalog.isRevoked(toolKey(mcpName))) {
        // Asked for a tool the stored list lacks: the server may have added it since.
        await refresh().catch(() => {});
      }
      const base = caretakers.onTool(mcpName, session);
      if (copyName === undefined) {
        const capability = makeToolCapability(base);
        keys.set(capability, toolKey(mcpName));
        return capability;
      }
      const bounds = parseBounds(boundsJson ?? '{}');
      const copy = makeToolCapability(caretakers.onCopy(copyName, base), { petName: copyName, bounds });
      keys.set(copy, copyKey(copyName));
      return copy;
    },
    revoke: async (capability: object) => {
      await loaded;
      const key = keys.get(capability);
      if (key === undefined) throw Error(`${q(capability)} is not a capability of the MCP bridge ${server}`);
      caretakers.revoke(key);
      logger.event('mcp-revoked', { server: config.name, capability: key });
      await catalog.revoke(key);
    },
    revokeAll: async () => {
      const session = await loaded;
      caretakers.onServer().revoke();
      logger.event('mcp-revoked', { server: config.name, capability: SERVER_KEY });
      await catalog.revokeServer();
      await session.close();
    },
    status: async () => {
      await loaded;
      return catalog.status();
    },
  });
};
harden(makeMcpBridge);

export type McpBridge = ReturnType<typeof makeMcpBridge>;

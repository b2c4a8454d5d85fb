// What a bridge knows of its server (bridge.ts): the tool list it last
// gave, each tool's names, and what the host revoked; saved through the
// state keeper whenever it changes, so a restart finds it as it was.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../logging/log.js';
import { nameTools, type ToolNaming } from './tool-names.js';
import { needsApprovalFor } from './offered-schema.js';
import type { BridgeState, StateKeeper } from './bridge-state.js';
import type { ServerConfig } from './server-config.js';

export interface CatalogEntry {
  readonly tool: Tool;
  readonly naming: ToolNaming;
}

/** A JSON.stringify replacer writing every object's keys in order. */
const sortedKeys = (_key: string, value: unknown) =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : value;

/**
 * The same tools, whatever the order of their keys: a list read back from
 * the daemon's store comes with its keys sorted, and is no change.
 */
const sameJson = (a: unknown, b: unknown) => JSON.stringify(a, sortedKeys) === JSON.stringify(b, sortedKeys);

export const makeBridgeCatalog = ({ config, logger, keeper }: { config: ServerConfig; logger: Logger; keeper: StateKeeper }) => {
  let entries = new Map<string, CatalogEntry>();
  let state: BridgeState = harden({ tools: undefined, revoked: [], all: false });

  const setTools = (tools: readonly Tool[]) => {
    const namings = nameTools(tools.map(tool => tool.name));
    entries = new Map(tools.map((tool, i) => [tool.name, harden({ tool, naming: namings[i] })]));
    state = harden({ ...state, tools });
  };
  const save = () => keeper.save(state).catch(error => logger.warn('mcp-state-not-saved', { server: config.name, error }));

  /** The server's new list, as its notification gives it: logged and saved when it differs. */
  const changed = (tools: readonly Tool[]) => {
    const before = entries;
    setTools(tools);
    const added = tools.filter(tool => !before.has(tool.name)).map(tool => tool.name);
    const removed = [...before.keys()].filter(name => !entries.has(name));
    const altered = tools.filter(tool => before.has(tool.name) && !sameJson(before.get(tool.name)?.tool, tool)).map(tool => tool.name);
    // The same tools, in another order or read back from the store: nothing to say or save.
    if (added.length + removed.length + altered.length === 0) return;
    logger.event('mcp-tools-changed', { server: config.name, added: added.join(','), removed: removed.join(','), changed: altered.join(',') });
    save().catch(() => {});
  };

  return harden({
    /** Reads what was stored; resolves whether the server was ever connected to. */
    load: async () => {
      state = await keeper.load();
      if (state.tools !== undefined) setTools(state.tools);
      return state.tools !== undefined;
    },
    changed,
    /** The list the server gave when asked: the first one kept quietly, a later one as a change. */
    listed: (tools: readonly Tool[]) => {
      if (sameJson(state.tools, tools)) return;
      if (state.tools !== undefined) {
        changed(tools);
        return;
      }
      setTools(tools);
      save().catch(() => {});
    },
    /** Whether the server's list is known (stored or asked). */
    known: () => state.tools !== undefined,
    entry: (mcpName: string) => entries.get(mcpName),
    isRevoked: (key: string) => state.revoked.includes(key),
    isServerRevoked: () => state.all,
    /** Notes `key` revoked, and saves it. */
    revoke: async (key: string) => {
      if (!state.revoked.includes(key)) state = harden({ ...state, revoked: [...state.revoked, key] });
      await save();
    },
    /** Notes the whole server revoked, and saves it. */
    revokeServer: async () => {
      state = harden({ ...state, all: true });
      await save();
    },
    describe: () =>
      harden(
        [...entries.values()].map(({ tool, naming }) => ({
          name: tool.name,
          schemaName: naming.schemaName,
          petName: naming.petName,
          asksApproval: needsApprovalFor(tool),
        })),
      ),
    status: () => harden({ server: config.name, tools: entries.size, revoked: [...state.revoked], serverRevoked: state.all }),
  });
};
harden(makeBridgeCatalog);

export type BridgeCatalog = ReturnType<typeof makeBridgeCatalog>;

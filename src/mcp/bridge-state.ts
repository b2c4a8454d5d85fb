// What the bridge keeps across daemon restarts, in the daemon itself (a
// value in the small guest the bridge is given as its powers): the last
// tool list the server gave, so capabilities answer their schema without
// reconnecting, and what the host revoked, so a restart revokes nothing back.
import { E } from '@endo/far';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { isRecord } from '../is-record.js';

export interface BridgeState {
  readonly tools: readonly Tool[] | undefined;
  /** The caretaker keys revoked (`tool:<MCP name>`, `copy:<pet name>`). */
  readonly revoked: readonly string[];
  /** The whole server was revoked. */
  readonly all: boolean;
}

const STATE_NAME = 'mcp-bridge-state';

export interface StateKeeper {
  load(): Promise<BridgeState>;
  save(state: BridgeState): Promise<void>;
}

// `any`: the keeper is a remote guest.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Keeper = any;

const EMPTY: BridgeState = harden({ tools: undefined, revoked: [], all: false });

/** Keeps the state under one name of `keeper`; saves go one after another, in order. */
export const makeStateKeeper = (keeper: Keeper): StateKeeper => {
  let saving: Promise<void> = Promise.resolve();
  return harden({
    load: async () => {
      if (!(await E(keeper).has(STATE_NAME))) return EMPTY;
      const stored: unknown = await E(keeper).lookup(STATE_NAME);
      if (!isRecord(stored)) return EMPTY;
      return harden({
        tools: Array.isArray(stored.tools) ? (stored.tools as Tool[]) : undefined,
        revoked: Array.isArray(stored.revoked) ? stored.revoked.filter((key): key is string => typeof key === 'string') : [],
        all: stored.all === true,
      });
    },
    save: state => {
      // Plain JSON data: what the daemon can store, whatever the SDK added.
      const plain = JSON.parse(JSON.stringify({ tools: state.tools ?? null, revoked: state.revoked, all: state.all }));
      saving = saving.catch(() => {}).then(() => E(keeper).storeValue(harden(plain), STATE_NAME));
      return saving;
    },
  });
};
harden(makeStateKeeper);

/** Keeps nothing: for a bridge made without a keeper. */
export const memoryKeeper: StateKeeper = harden({ load: async () => EMPTY, save: async () => {} });

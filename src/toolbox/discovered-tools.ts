// What discovery yields (tools.ts, registry/): the tools on offer by the
// name the model is shown, and where each one from tools/ comes from.
import type { ToolSchema } from '../../providers/types.js';
import type { FaeToolMethods, Ref } from '../daemon/endo-types.js';

export const TOOLS_DIRECTORY = 'tools';

/** A FaeTool: a local exo or a remote presence; only E() is used on it. */
export type FaeTool = Ref<FaeToolMethods>;

/** Where a tool offered from tools/ comes from. */
export interface OfferedOrigin {
  /** Its pet name under tools/. */
  readonly petName: string;
  /** The name its schema gives; the offered name differs when a built-in has it. */
  readonly ownName: string;
  /** Its schema asks that the host approve each call (needsApproval). */
  readonly needsApproval: boolean;
  /** The formula id of the capability, when known: whose it is is told by it. */
  readonly id?: string;
  /** For a capability that is not a FaeTool: the method the tool calls (its schema is fae's, from the guard). */
  readonly method?: string;
  /** Its arguments given as the pet name of a capability in fae's directory (what the host is shown). */
  readonly capabilityArgs?: readonly string[];
}

/**
 * The tools offered to one principal: the built-ins and those from tools/
 * that `mayUse` lets it use, in the same order (so each principal's
 * requests keep a stable prefix).
 */
export const offeredWhere = (tools: DiscoveredTools, mayUse: (origin: OfferedOrigin) => boolean): DiscoveredTools => {
  const withheld = new Set([...tools.origins].filter(([, origin]) => !mayUse(origin)).map(([name]) => name));
  if (withheld.size === 0) return tools;
  return harden({
    schemas: tools.schemas.filter(schema => !withheld.has(schema.function.name)),
    toolMap: new Map([...tools.toolMap].filter(([name]) => !withheld.has(name))),
    origins: new Map([...tools.origins].filter(([name]) => !withheld.has(name))),
  });
};
harden(offeredWhere);

export interface DiscoveredTools {
  /** What the model is offered, built-ins first, then tools/ by pet name (offered-tools.ts). */
  readonly schemas: readonly ToolSchema[];
  /** Offered name → tool. */
  readonly toolMap: ReadonlyMap<string, FaeTool>;
  /** Offered name → where it comes from, for each tool from tools/. */
  readonly origins: ReadonlyMap<string, OfferedOrigin>;
}

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
}

export interface DiscoveredTools {
  /** What the model is offered, built-ins first, then tools/ by pet name (offered-tools.ts). */
  readonly schemas: readonly ToolSchema[];
  /** Offered name → tool. */
  readonly toolMap: ReadonlyMap<string, FaeTool>;
  /** Offered name → where it comes from, for each tool from tools/. */
  readonly origins: ReadonlyMap<string, OfferedOrigin>;
}

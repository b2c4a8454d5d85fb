// What the live registry knows about tools/: pet name → the formula id it
// was last seen to name, the tool, and the outcome of reading its schema
// once. The snapshot the model is offered is assembled from these entries
// by the same function as discoverTools's (offered-tools.ts).
import { E, Far } from '@endo/far';
import { q } from '@endo/errors';
import type { ToolSchema } from '../../../providers/types.js';
import type { FaeToolMethods } from '../../daemon/endo-types.js';
import { checkToolSchema } from '../tool-schema.js';
import { withTimeout } from '../../timeout.js';
import { cancelCall, executeWithCallId } from '../tool-cancellation.js';
import { TOOLS_DIRECTORY, type DiscoveredTools, type FaeTool } from '../discovered-tools.js';
import { offerTools, type BuiltInTool, type ToolCandidate, type ToolReports } from './offered-tools.js';

/** One schema read, done once per (pet name, formula id). */
export type ToolRead =
  | { readonly ok: true; readonly schema: ToolSchema; readonly needsApproval: boolean }
  | { readonly ok: false; readonly key: string; readonly fields: Record<string, unknown> };

export interface ToolEntry {
  readonly petName: string;
  /** The formula id the name pointed at when it was read. */
  readonly id: string;
  readonly tool: FaeTool;
  readonly read: Promise<ToolRead>;
}

/** Asks a tools directory for one tool and its schema, bounded in time. */
export const readToolEntry = (
  directory: unknown,
  petName: string,
  id: string,
  timeoutMs: number,
): ToolEntry => {
  const label = `${TOOLS_DIRECTORY}/${petName}`;
  // `any`: the directory is a remote reference.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const tool = E(directory as any).lookup(petName) as Promise<FaeToolMethods>;
  // Nobody may await the tool itself when its schema read fails first.
  tool.catch(() => {});
  const schema = withTimeout(
    E(tool).schema(),
    timeoutMs,
    () => `schema() of ${q(petName)} did not answer within ${timeoutMs} ms`,
  );
  const read: Promise<ToolRead> = schema.then(
    value => {
      const check = checkToolSchema(value);
      return check.ok
        ? harden({ ok: true as const, schema: check.schema, needsApproval: check.needsApproval })
        : harden({
            ok: false as const,
            key: `${label} ${check.problem}`,
            fields: { tool: label, problem: check.problem },
          });
    },
    error =>
      harden({ ok: false as const, key: `${label} rejected`, fields: { tool: label, error } }),
  );
  return harden({ petName, id, tool, read });
};
harden(readToolEntry);

/** The built-ins' schemas, checked once: they never change during a run. */
export const readBuiltIns = async (builtIns: ReadonlyMap<string, FaeTool>) =>
  Promise.all(
    [...builtIns].map(async ([label, tool]) => {
      const check = checkToolSchema(await E(tool).schema());
      if (!check.ok) throw Error(`built-in ${q(label)}: ${check.problem}`);
      return harden({ label, schema: check.schema, tool });
    }),
  );

/**
 * A daemon tool as the turn calls it: before every call it checks that
 * tools/ still holds this very formula, so a tool removed or replaced
 * after the model was offered it fails with a clear error instead of
 * reaching a collected capability (or a different tool under its name).
 * It passes a call id and cancel on to a tool that offers cancellation.
 */
const guardTool = (
  entry: ToolEntry,
  name: string,
  isCurrent: (entry: ToolEntry) => 'current' | 'removed' | 'replaced',
): FaeTool =>
  Far('RegisteredTool', {
    schema: async () => (await entry.read as { schema: ToolSchema }).schema,
    help: () => E(entry.tool).help(),
    execute: (args: Readonly<Record<string, unknown>>, callId?: string) => {
      const state = isCurrent(entry);
      if (state === 'removed') {
        throw Error(
          `The tool ${q(name)} (tools/${entry.petName}) was removed while you were working; it cannot be called any more.`,
        );
      }
      if (state === 'replaced') {
        throw Error(
          `tools/${entry.petName} was replaced by another tool while you were working; its current description is in your tool list: call it again if it still fits.`,
        );
      }
      return callId === undefined ? E(entry.tool).execute(args) : executeWithCallId(entry.tool, args, callId);
    },
    cancel: (callId: string) => cancelCall(entry.tool, callId),
  }) as unknown as FaeTool;

/**
 * Builds what the model is offered (offered-tools.ts). Each problem (bad
 * schema, failed read, duplicate name) is reported once.
 */
export const assembleTools = async (
  builtIns: readonly BuiltInTool[],
  entries: readonly ToolEntry[],
  isCurrent: (entry: ToolEntry) => 'current' | 'removed' | 'replaced',
  reports: ToolReports,
): Promise<DiscoveredTools> => {
  const sorted = [...entries].sort((a, b) => (a.petName < b.petName ? -1 : a.petName > b.petName ? 1 : 0));
  const reads = await Promise.all(sorted.map(entry => entry.read));
  const candidates: ToolCandidate[] = [];
  reads.forEach((read, index) => {
    const entry = sorted[index];
    if (!read.ok) {
      reports.skipped(read.key, read.fields);
      return;
    }
    candidates.push({
      label: `${TOOLS_DIRECTORY}/${entry.petName}`,
      petName: entry.petName,
      schema: read.schema,
      needsApproval: read.needsApproval,
      id: entry.id,
      toolFor: name => guardTool(entry, name, isCurrent),
    });
  });
  return offerTools(builtIns, candidates, reports);
};
harden(assembleTools);

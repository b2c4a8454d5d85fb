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
import { askMethodsAndGuard, probeCapability, type ProbedCapability } from '../capabilities/capability-probe.js';
import { makeMethodTool, type DirectoryIn } from '../capabilities/method-tool.js';
import { withArgumentCheck } from '../built-ins/built-in-tool.js';

/** One read, done once per (pet name, formula id): a FaeTool's schema, or what any other capability offers. */
export type ToolRead =
  | { readonly ok: true; readonly schema: ToolSchema; readonly needsApproval: boolean; readonly checks?: boolean }
  | { readonly ok: true; readonly capability: ProbedCapability }
  | { readonly ok: false; readonly key: string; readonly fields: Record<string, unknown> };

type SchemaRead = Extract<ToolRead, { schema: ToolSchema }>;

export interface ToolEntry {
  readonly petName: string;
  /** The formula id the name pointed at when it was read. */
  readonly id: string;
  readonly tool: FaeTool;
  readonly read: Promise<ToolRead>;
}

/** A FaeTool's schema, read and checked, bounded in time. */
const readSchema = (tool: Promise<FaeToolMethods>, petName: string, label: string, timeoutMs: number): Promise<ToolRead> => {
  const schema = withTimeout(
    E(tool).schema(),
    timeoutMs,
    () => `schema() of ${q(petName)} did not answer within ${timeoutMs} ms`,
  );
  return schema.then(
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
};

/**
 * Reads one capability under tools/: a FaeTool (it has schema and execute)
 * by its schema; any other by what its guard and help say (issue 38).
 * Its method names and guard are asked first, in one round trip.
 */
export const readTool = async (tool: Promise<unknown>, petName: string, timeoutMs: number): Promise<ToolRead> => {
  const label = `${TOOLS_DIRECTORY}/${petName}`;
  try {
    const first = await askMethodsAndGuard(await tool, timeoutMs);
    if (first.names === undefined || (first.names.includes('schema') && first.names.includes('execute'))) {
      const read = await readSchema(tool as Promise<FaeToolMethods>, petName, label, timeoutMs);
      // A FaeTool that can check a call's arguments is asked to before its host is (CheckingFaeToolInterface).
      return read.ok && 'schema' in read && first.names?.includes('check') ? harden({ ...read, checks: true }) : read;
    }
    return harden({ ok: true as const, capability: await probeCapability(await tool, timeoutMs, first) });
  } catch (error) {
    return harden({ ok: false as const, key: `${label} rejected`, fields: { tool: label, error } });
  }
};
harden(readTool);

/** Asks a tools directory for one tool and reads it, bounded in time. */
export const readToolEntry = (
  directory: unknown,
  petName: string,
  id: string,
  timeoutMs: number,
): ToolEntry => {
  // `any`: the directory is a remote reference.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const tool = E(directory as any).lookup(petName) as Promise<FaeToolMethods>;
  // Nobody may await the tool itself when its read fails first.
  tool.catch(() => {});
  return harden({ petName, id, tool, read: readTool(tool, petName, timeoutMs) });
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
  checks = false,
): FaeTool => {
  const tool = registeredTool(entry, name, isCurrent);
  // `any`: a checking FaeTool's `check`, which FaeToolMethods does not list.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return checks ? withArgumentCheck(tool, async args => E(entry.tool as any).check(args)) : tool;
};

const registeredTool = (
  entry: ToolEntry,
  name: string,
  isCurrent: (entry: ToolEntry) => 'current' | 'removed' | 'replaced',
): FaeTool =>
  Far('RegisteredTool', {
    schema: async () => ((await entry.read) as SchemaRead).schema,
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

/** Why `entry` may no longer be called, if it may not. */
const goneReason = (entry: ToolEntry, state: 'current' | 'removed' | 'replaced') => {
  if (state === 'removed') return `tools/${entry.petName} was removed while you were working; it cannot be called any more.`;
  if (state === 'replaced') {
    return `tools/${entry.petName} was replaced while you were working; its current methods are in your tool list: call again if one still fits.`;
  }
  return undefined;
};

/** One candidate per method of a capability that is not a FaeTool. */
const methodCandidates = (
  entry: ToolEntry,
  probed: ProbedCapability,
  isCurrent: (entry: ToolEntry) => 'current' | 'removed' | 'replaced',
  directoryIn: DirectoryIn,
): ToolCandidate[] =>
  probed.methods.map(plan => {
    const { tool, schema, capabilityArgs } = makeMethodTool({
      capability: entry.tool,
      petName: entry.petName,
      probed,
      plan,
      directoryIn,
      gone: () => goneReason(entry, isCurrent(entry)),
    });
    return {
      label: `${TOOLS_DIRECTORY}/${entry.petName}`,
      petName: entry.petName,
      // Known without a round trip: a method tool is fae's own exo.
      schema,
      // Consequential unless the host says otherwise (approval-policy.ts: readonly:).
      needsApproval: true,
      method: plan.method,
      capabilityArgs,
      ...(entry.id === '' ? {} : { id: entry.id }),
      toolFor: () => tool,
    };
  });

/**
 * Builds what the model is offered (offered-tools.ts). Each problem (bad
 * schema, failed read, duplicate name) is reported once. A capability that
 * is not a FaeTool offers its methods when `directoryIn` gives its calls
 * the turn's authority; without it, it is skipped.
 */
export const assembleTools = async (
  builtIns: readonly BuiltInTool[],
  entries: readonly ToolEntry[],
  isCurrent: (entry: ToolEntry) => 'current' | 'removed' | 'replaced',
  reports: ToolReports,
  directoryIn?: DirectoryIn,
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
    if ('capability' in read) {
      const label = `${TOOLS_DIRECTORY}/${entry.petName}`;
      if (directoryIn === undefined) reports.skipped(`${label} not a FaeTool`, { tool: label, problem: 'not a FaeTool, and no built-ins to call it with' });
      else candidates.push(...methodCandidates(entry, read.capability, isCurrent, directoryIn));
      return;
    }
    candidates.push({
      label: `${TOOLS_DIRECTORY}/${entry.petName}`,
      petName: entry.petName,
      schema: read.schema,
      needsApproval: read.needsApproval,
      ...(entry.id === '' ? {} : { id: entry.id }),
      toolFor: name => guardTool(entry, name, isCurrent, read.checks === true),
    });
  });
  return offerTools(builtIns, candidates, reports);
};
harden(assembleTools);

// What the model is offered, and under which names: the built-ins first,
// then the tools under tools/ in pet-name order, each under the name its
// schema gives. Both discovery by listing (tools.ts) and the live registry
// (tool-entries.ts) assemble it here, so they cannot disagree.
//
// A tool whose name is a built-in's would be unusable (the model calls the
// built-in), so it is offered as `tool_<name>` instead, or `tool_<name>_2`,
// `_3`, … when that is taken too. These names are given after every other
// tool has its own, so a tool never loses its own name to a renamed one,
// and the same tools always get the same names. Of two tools under tools/
// with one name, the first keeps it and the other is skipped, as before.
import { q } from '@endo/errors';
import type { ToolSchema } from '../../../providers/types.js';
import type { Logger } from '../../logging/log.js';
import type { DiscoveredTools, FaeTool, OfferedOrigin } from '../discovered-tools.js';

/** A tool under tools/ whose schema was read and checked. */
export interface ToolCandidate {
  /** How logs name it: "tools/<pet name>". */
  readonly label: string;
  readonly petName: string;
  readonly schema: ToolSchema;
  /** Its schema asks that the host approve each call. */
  readonly needsApproval: boolean;
  /** Its formula id, when known. */
  readonly id?: string;
  /** For a capability that is not a FaeTool: the method this tool calls. */
  readonly method?: string;
  /** Its arguments given as the pet name of a capability in fae's directory. */
  readonly capabilityArgs?: readonly string[];
  /** The tool to call, told the name it is offered under (for its errors). */
  readonly toolFor: (offeredName: string) => FaeTool;
}

/** Problems and renamings, each reported once under a stable key. */
export interface ToolReports {
  skipped(key: string, fields: Record<string, unknown>): void;
  renamed(key: string, fields: Record<string, unknown>): void;
}

export const makeToolReports = (logger: Logger, reported: Set<string>): ToolReports => {
  const once = (key: string, report: () => void) => {
    if (reported.has(key)) return;
    reported.add(key);
    report();
  };
  return harden({
    skipped: (key: string, fields: Record<string, unknown>) => once(key, () => logger.warn('tool-skipped', fields)),
    renamed: (key: string, fields: Record<string, unknown>) => once(key, () => logger.event('tool-renamed', fields)),
  });
};
harden(makeToolReports);

const RENAMED_PREFIX = 'tool_';

/** `tool_<name>`, else `tool_<name>_2`, `_3`, …: the first not in `taken`. */
const freeName = (name: string, taken: ReadonlyMap<string, unknown>) => {
  const base = `${RENAMED_PREFIX}${name}`;
  let candidate = base;
  for (let n = 2; taken.has(candidate); n += 1) candidate = `${base}_${n}`;
  return candidate;
};

/** The schema as offered under `offered`, saying why it is not its own name. */
const renamedSchema = (schema: ToolSchema, offered: string): ToolSchema => {
  const own = schema.function.name;
  const note = `(Offered as ${offered}: its own name, ${own}, is a built-in's.)`;
  const { description } = schema.function;
  return harden({
    ...schema,
    function: { ...schema.function, name: offered, description: description === '' ? note : `${description} ${note}` },
  });
};

/** A built-in (or other local tool), checked, and how logs name it. */
export interface BuiltInTool {
  readonly label: string;
  readonly schema: ToolSchema;
  readonly tool: FaeTool;
}

export const offerTools = (
  builtIns: readonly BuiltInTool[],
  candidates: readonly ToolCandidate[],
  reports: ToolReports,
): DiscoveredTools => {
  const schemas: ToolSchema[] = [];
  const toolMap = new Map<string, FaeTool>();
  const origins = new Map<string, OfferedOrigin>();
  const skipDuplicate = (label: string, name: string) =>
    reports.skipped(`${label} duplicate ${name}`, {
      tool: label,
      problem: `another tool is already called ${q(name)}`,
    });
  for (const { label, schema, tool } of builtIns) {
    if (toolMap.has(schema.function.name)) {
      skipDuplicate(label, schema.function.name);
      continue;
    }
    schemas.push(schema);
    toolMap.set(schema.function.name, tool);
  }
  const builtInNames = new Set(toolMap.keys());
  const offer = (candidate: ToolCandidate, schema: ToolSchema) => {
    const offered = schema.function.name;
    schemas.push(schema);
    toolMap.set(offered, candidate.toolFor(offered));
    origins.set(
      offered,
      harden({
        petName: candidate.petName,
        ownName: candidate.schema.function.name,
        needsApproval: candidate.needsApproval,
        ...(candidate.id === undefined ? {} : { id: candidate.id }),
        ...(candidate.method === undefined ? {} : { method: candidate.method }),
        ...(candidate.capabilityArgs === undefined || candidate.capabilityArgs.length === 0 ? {} : { capabilityArgs: candidate.capabilityArgs }),
      }),
    );
  };
  const clashing: ToolCandidate[] = [];
  for (const candidate of candidates) {
    const { name } = candidate.schema.function;
    if (builtInNames.has(name)) {
      clashing.push(candidate);
    } else if (toolMap.has(name)) {
      skipDuplicate(candidate.label, name);
    } else {
      offer(candidate, candidate.schema);
    }
  }
  for (const candidate of clashing) {
    const { name } = candidate.schema.function;
    const offered = freeName(name, toolMap);
    offer(candidate, renamedSchema(candidate.schema, offered));
    reports.renamed(`${candidate.label} renamed ${name} ${offered}`, {
      tool: candidate.label,
      name,
      offeredAs: offered,
    });
  }
  return harden({ schemas, toolMap, origins });
};
harden(offerTools);

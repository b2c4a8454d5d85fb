// src/toolbox/: everything the model can call: discovery of the tools under
// tools/ and the introduced ones (registry/), the built-ins (built-ins/),
// schema checks, tool-call extraction from text, execution with a timeout,
// and how a result is written back for the model. It imports the layers
// below it (scripts/check-imports.mjs), never the agent.
//
// Tool discovery and execution. At the start of every turn fae merges its
// built-in tools with every FaeTool under its `tools/` directory, keyed by
// the name the model is shown (the schema's function name, not the pet
// name: upstream F5; `tool_<name>` when a built-in has that name). Discovery costs about one daemon round trip: all the
// lookups and schema() calls go out together.
import { E } from '@endo/far';
import { q } from '@endo/errors';
import { checkToolSchema } from './tool-schema.js';
import { unlessGivenUp } from '../timeout.js';
import { cancelCall, executeWithCallId, makeToolCallId } from './tool-cancellation.js';
import { ownExecuteOf } from './built-ins/built-in-tool.js';
import type { TurnScope } from './built-ins/turn-scope.js';
import type { Logger } from '../logging/log.js';
import type { FaeToolMethods, GuestPowers, Ref } from '../daemon/endo-types.js';
import { silentLogger } from '../logging/log.js';
import { formulaIdOf } from '../daemon/dialect.js';
import { makeToolReports, type BuiltInTool, type ToolReports } from './registry/offered-tools.js';
import { assembleTools, readTool, type ToolEntry } from './registry/tool-entries.js';
import type { DirectoryIn } from './capabilities/method-tool.js';
import { TOOLS_DIRECTORY, type DiscoveredTools, type FaeTool } from './discovered-tools.js';
import { REPORTED_ALREADY, inBackground } from '../background.js';

export interface DiscoverOptions {
  readonly logger?: Logger;
  /** Upper bound for one tool's schema() answer, in ms. */
  readonly timeoutMs?: number;
  /**
   * Problems already reported (by key); each is logged once, not on
   * every turn. Pass the same set on every call.
   */
  readonly reported?: Set<string>;
  /** Gives a capability's method calls the turn's authority; without it, only FaeTools are offered. */
  readonly directoryIn?: DirectoryIn;
}

const DEFAULT_SCHEMA_TIMEOUT_MS = 10_000;

const listToolNames = async (powers: Ref<GuestPowers>, logger: Logger) => {
  try {
    return await E(powers).list(TOOLS_DIRECTORY);
  } catch (error) {
    // A missing tools/ directory means no daemon tools, not a broken turn.
    logger.warn('tools-unlisted', { error });
    return [];
  }
};

/** The local tools' schemas, checked; one that fails is skipped (and reported once). */
const readLocalTools = async (localTools: ReadonlyMap<string, FaeTool>, reports: ToolReports) => {
  const reads = await Promise.allSettled([...localTools].map(async ([label, tool]) => ({ label, tool, check: checkToolSchema(await E(tool).schema()) })));
  const builtIns: BuiltInTool[] = [];
  reads.forEach((outcome, index) => {
    const label = [...localTools.keys()][index];
    if (outcome.status === 'rejected') reports.skipped(`${label} rejected`, { tool: label, error: outcome.reason });
    else if (!outcome.value.check.ok) reports.skipped(`${label} ${outcome.value.check.problem}`, { tool: label, problem: outcome.value.check.problem });
    else builtIns.push({ label, schema: outcome.value.check.schema, tool: outcome.value.tool });
  });
  return builtIns;
};

/** One tool under tools/, read now: its lookup, id and read go out together. */
const readListedEntry = async (powers: Ref<GuestPowers>, petName: string, timeoutMs: number): Promise<ToolEntry> => {
  const tool = E(powers).lookup([TOOLS_DIRECTORY, petName]) as Promise<FaeToolMethods>;
  tool.catch(() => {});
  const id = Promise.resolve(E(powers).identify(TOOLS_DIRECTORY, petName)).then(
    found => (typeof found === 'string' ? (formulaIdOf(found) ?? found) : ''),
    () => '',
  );
  const read = readTool(tool, petName, timeoutMs);
  return harden({ petName, id: await id, tool, read });
};

export const discoverTools = async (
  powers: Ref<GuestPowers>,
  localTools: ReadonlyMap<string, FaeTool>,
  {
    logger = silentLogger,
    timeoutMs = DEFAULT_SCHEMA_TIMEOUT_MS,
    reported = new Set(),
    directoryIn,
  }: DiscoverOptions = {},
): Promise<DiscoveredTools> => {
  const reports = makeToolReports(logger, reported);
  const [builtIns, entries] = await Promise.all([
    readLocalTools(localTools, reports),
    listToolNames(powers, logger).then(names => Promise.all(names.map(petName => readListedEntry(powers, petName, timeoutMs)))),
  ]);
  // Listed now: every tool is current for this snapshot.
  return assembleTools(builtIns, entries, () => 'current', reports, directoryIn);
};
harden(discoverTools);

export interface ExecuteOptions {
  /** Upper bound for the call, in ms; none when omitted. */
  readonly timeoutMs?: number;
  /** Aborted when fae gives up on the call (its turn was cancelled). */
  readonly signal?: AbortSignal;
  /** The turn that calls, for the turn-bound built-ins (none outside a turn). */
  readonly scope?: TurnScope;
}

/**
 * Calls the named tool through E(), so local and far tools behave alike.
 * Rejects for an unknown name (listing the known ones), on timeout and
 * when `signal` aborts (with its reason); in the last two cases a tool
 * that offers cancellation is told to stop the call (tool-cancellation.ts).
 * A built-in, which cancels nothing, runs by its own execute with the
 * timeout alone: when its turn is cancelled, runTurn stops waiting for its
 * round of calls, so it needs neither a call id nor a listener of its own
 * on the signal (a turn's first tool call spent some 15 µs on those).
 */
export const executeTool = async (
  name: string,
  args: Readonly<Record<string, unknown>>,
  toolMap: ReadonlyMap<string, FaeTool>,
  { timeoutMs, signal, scope }: ExecuteOptions = {},
): Promise<unknown> => {
  const tool = toolMap.get(name);
  if (tool === undefined) {
    const known = [...toolMap.keys()].join(', ');
    throw Error(`Unknown tool ${q(name)}. The tools are: ${known}`);
  }
  signal?.throwIfAborted();
  const given = harden({ ...args });
  const describe = () => `Tool ${q(name)} did not answer within ${timeoutMs} ms`;
  const own = ownExecuteOf(tool);
  // A built-in that waits for the host (a hand-over's approval) is not out of time meanwhile.
  if (own !== undefined) return unlessGivenUp(own(given, scope), { timeoutMs, describe, extendWhile: scope?.waitingForHost });
  const callId = makeToolCallId();
  return unlessGivenUp(executeWithCallId(tool, given, callId), {
    timeoutMs,
    describe,
    signal,
    // cancelCall tells a tool what it can; one that cannot be told has nothing to stop.
    onGiveUp: () => inBackground(cancelCall(tool, callId), REPORTED_ALREADY),
  });
};
harden(executeTool);

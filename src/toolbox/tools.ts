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
import { unlessGivenUp, withTimeout } from '../timeout.js';
import { cancelCall, executeWithCallId, makeToolCallId } from './tool-cancellation.js';
import { ownExecuteOf } from './built-ins/built-in-tool.js';
import type { TurnScope } from './built-ins/turn-scope.js';
import type { Logger } from '../logging/log.js';
import type { FaeToolMethods, GuestPowers, Ref } from '../daemon/endo-types.js';
import { silentLogger } from '../logging/log.js';
import { formulaIdOf } from '../daemon/dialect.js';
import { makeToolReports, offerTools, type BuiltInTool, type ToolCandidate } from './registry/offered-tools.js';
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
}

const DEFAULT_SCHEMA_TIMEOUT_MS = 10_000;

type Candidate = {
  readonly label: string;
  /** Its formula id, asked with it (none for a local tool). */
  readonly id?: Promise<string | undefined>;
  /** Its name under tools/; undefined for a local tool. */
  readonly petName: string | undefined;
  readonly tool: FaeTool;
  readonly schema: Promise<unknown>;
};

const listToolNames = async (powers: Ref<GuestPowers>, logger: Logger) => {
  try {
    return await E(powers).list(TOOLS_DIRECTORY);
  } catch (error) {
    // A missing tools/ directory means no daemon tools, not a broken turn.
    logger.warn('tools-unlisted', { error });
    return [];
  }
};

export const discoverTools = async (
  powers: Ref<GuestPowers>,
  localTools: ReadonlyMap<string, FaeTool>,
  {
    logger = silentLogger,
    timeoutMs = DEFAULT_SCHEMA_TIMEOUT_MS,
    reported = new Set(),
  }: DiscoverOptions = {},
): Promise<DiscoveredTools> => {
  const reports = makeToolReports(logger, reported);
  const names = await listToolNames(powers, logger);
  const local: Candidate[] = [...localTools].map(([label, tool]) => ({
    label,
    petName: undefined,
    tool,
    schema: E(tool).schema(),
  }));
  const remote: Candidate[] = names.map(petName => {
    const tool = E(powers).lookup([TOOLS_DIRECTORY, petName]) as Promise<FaeToolMethods>;
    const id = Promise.resolve(E(powers).identify(TOOLS_DIRECTORY, petName)).then(
      found => (typeof found === 'string' ? (formulaIdOf(found) ?? found) : undefined),
      () => undefined,
    );
    return {
      label: `${TOOLS_DIRECTORY}/${petName}`,
      id,
      petName,
      tool,
      schema: withTimeout(
        E(tool).schema(),
        timeoutMs,
        () => `schema() of ${q(petName)} did not answer within ${timeoutMs} ms`,
      ),
    };
  });
  const candidates = [...local, ...remote];
  const settled = await Promise.allSettled(
    candidates.map(async ({ tool, schema, id }) => ({
      tool: await tool,
      schema: await schema,
      id: await id,
    })),
  );

  const builtIns: BuiltInTool[] = [];
  const fromDirectory: ToolCandidate[] = [];
  settled.forEach((outcome, index) => {
    const { label, petName } = candidates[index];
    if (outcome.status === 'rejected') {
      reports.skipped(`${label} rejected`, { tool: label, error: outcome.reason });
      return;
    }
    const check = checkToolSchema(outcome.value.schema);
    if (!check.ok) {
      reports.skipped(`${label} ${check.problem}`, {
        tool: label,
        problem: check.problem,
      });
      return;
    }
    const { tool, id } = outcome.value;
    if (petName === undefined) builtIns.push({ label, schema: check.schema, tool });
    else fromDirectory.push({ label, petName, id, schema: check.schema, needsApproval: check.needsApproval, toolFor: () => tool });
  });
  return offerTools(builtIns, fromDirectory, reports);
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

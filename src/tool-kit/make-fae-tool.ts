// src/tool-kit/: what tools/*.ts and outside tool authors build on:
// makeFaeTool, FaeToolInterface, filesystem root confinement, the shell
// runner and the literal text edit. It imports nothing else from fae.
//
// Builds a FaeTool exo from a declarative description, so each tool module
// holds only what is particular to it: its parameters, its help and its
// execute function. The declared parameters are both the schema the model
// sees and the check applied to every call, so the two cannot drift apart.
import { makeExo, type Guarded } from '@endo/exo';
import { q } from '@endo/errors';
import { CancellableFaeToolInterface, FaeToolInterface } from './fae-tool-interface.js';

export type ParameterType = 'string' | 'number' | 'integer' | 'boolean' | 'array';

export interface ParameterSpec {
  readonly type: ParameterType;
  readonly description: string;
  /** For strings: the only accepted values. */
  readonly enum?: readonly string[];
  /**
   * For arrays: the JSON Schema of one item, shown to the model. Only
   * "is an array" is checked here; the tool checks the items itself.
   */
  readonly items?: Readonly<Record<string, unknown>>;
}

type ValueOf<P extends ParameterSpec> = P['type'] extends 'string'
  ? P['enum'] extends readonly (infer S)[]
    ? S
    : string
  : P['type'] extends 'boolean'
    ? boolean
    : P['type'] extends 'array'
      ? readonly unknown[]
      : number;

/** The validated arguments an execute function receives. */
export type ToolArgs<
  Ps extends Record<string, ParameterSpec>,
  R extends keyof Ps,
> = { readonly [K in R]: ValueOf<Ps[K]> } & {
  readonly [K in Exclude<keyof Ps, R>]?: ValueOf<Ps[K]>;
};

export interface FaeToolSpec<
  Ps extends Record<string, ParameterSpec>,
  R extends keyof Ps & string,
> {
  /** The schema name the model calls (keep upstream's names). */
  readonly name: string;
  /** What the model is told about the tool. */
  readonly description: string;
  readonly parameters: Ps;
  readonly required: readonly R[];
  /** What a person reading `help()` is told, including the tool's authority. */
  readonly help: string;
  /**
   * True for a tool whose execute stops its work when `call.signal`
   * aborts: the exo then offers cancellation (CancellableFaeToolInterface),
   * and a caller's `cancel(callId)` aborts that call's signal.
   */
  readonly cancellable?: boolean;
  /**
   * True for a tool each of whose calls the agent's host should approve
   * first (it writes, runs or sends something): the schema says
   * `needsApproval: true`, which fae reads and never shows the model.
   */
  readonly needsApproval?: boolean;
  readonly execute: (args: ToolArgs<Ps, R>, call: ToolCallContext) => Promise<string> | string;
}

/** What execute is told about its call besides the arguments. */
export interface ToolCallContext {
  /**
   * Aborted when the caller cancels this call (only ever for a tool made
   * `cancellable`): stop what the call started, as soon as you can.
   */
  readonly signal: AbortSignal;
}

/** The OpenAI-style function schema every FaeTool answers from schema(). */
export interface FunctionSchema {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description: string;
    readonly parameters: {
      readonly type: 'object';
      readonly properties: Readonly<Record<string, ParameterSpec>>;
      readonly required: readonly string[];
    };
  };
  /** The host should approve each call (fae reads it; the model never sees it). */
  readonly needsApproval?: true;
}

const typeName = (type: ParameterType) =>
  type === 'integer' || type === 'array' ? `an ${type}` : `a ${type}`;

const hasType = (value: unknown, type: ParameterType) => {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isSafeInteger(value);
    case 'array':
      return Array.isArray(value);
    default:
      return false;
  }
};

/**
 * Checks the model's arguments against the declared parameters and returns
 * the ones to use. Models often send `null` for an optional parameter they
 * mean to leave out, so `null` counts as absent; anything else that is not
 * declared is refused, because a misspelt optional parameter (`path` for
 * `dirPath`) would otherwise be silently ignored.
 */
const checkArguments = (
  toolName: string,
  parameters: Record<string, ParameterSpec>,
  required: readonly string[],
  args: Record<string, unknown>,
): Record<string, unknown> => {
  const accepted = Object.keys(parameters);
  const checked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    const spec = parameters[key];
    if (!spec) {
      const choices =
        accepted.length > 0
          ? `it accepts ${accepted.map(k => q(k)).join(', ')}`
          : 'it takes no arguments';
      throw Error(`${toolName}: unknown argument ${q(key)}; ${choices}`);
    }
    if (value === undefined || value === null) continue;
    if (!hasType(value, spec.type)) {
      throw Error(`${toolName}: argument ${q(key)} must be ${typeName(spec.type)}, not ${q(value)}`);
    }
    if (spec.enum && !spec.enum.includes(value as string)) {
      throw Error(`${toolName}: argument ${q(key)} must be one of ${q(spec.enum)}, not ${q(value)}`);
    }
    checked[key] = value;
  }
  for (const key of required) {
    const spec = parameters[key];
    if (!(key in checked)) {
      throw Error(`${toolName}: argument ${q(key)} is required (${typeName(spec.type)}: ${spec.description})`);
    }
  }
  return harden(checked);
};

// Every error names the tool it came from, so a person reading a log or the
// model reading a tool result knows which call failed.
const withToolName = (name: string, error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  return message.startsWith(`${name}: `)
    ? error
    : Error(`${name}: ${message}`, { cause: error });
};

/** The methods of a tool made here. */
type MadeToolMethods = {
  schema: () => FunctionSchema;
  execute: (args: Record<string, unknown>, callId?: string) => Promise<string>;
  help: () => string;
};

/** …and of one made `cancellable`. */
type CancellableToolMethods = MadeToolMethods & { cancel: (callId: string) => void };

// `readFile` → `ReadFileTool`: the exo's alleged name, as shown in the daemon.
const exoNameFor = (name: string) =>
  `${name.charAt(0).toUpperCase()}${name.slice(1)}Tool`;

/**
 * Makes a hardened FaeTool exo (guarded by FaeToolInterface) whose schema is
 * built from `spec` and whose execute checks arguments before calling
 * `spec.execute`. Errors thrown by `spec.execute` reach the caller prefixed
 * with the tool's name: they should say what went wrong and what to do.
 */
export const makeFaeTool = <
  const Ps extends Record<string, ParameterSpec>,
  const R extends keyof Ps & string = never,
  const C extends boolean = false,
>(
  spec: FaeToolSpec<Ps, R> & { readonly cancellable?: C },
): Guarded<C extends true ? CancellableToolMethods : MadeToolMethods> => {
  const { name, description, parameters, required, help, cancellable = false, needsApproval = false, execute } = spec;
  for (const key of required) {
    if (!(key in parameters)) {
      throw Error(`${name}: requires ${q(key)}, which is not among its parameters`);
    }
  }
  const schema: FunctionSchema = harden({
    type: 'function',
    function: {
      name,
      description,
      parameters: {
        type: 'object',
        properties: parameters,
        required: [...required],
      },
    },
    ...(needsApproval ? { needsApproval: true } : {}),
  });
  // The calls a caller may still cancel, by the id it gave them.
  const running = new Map<string, AbortController>();
  const methods = {
    schema: () => schema,
    execute: async (args: Record<string, unknown>, callId?: string) => {
      const checked = checkArguments(name, parameters, required, args);
      if (callId !== undefined && running.has(callId)) {
        throw Error(`${name}: a call with the id ${q(callId)} is already running; give each call an id of its own`);
      }
      // Never hardened: a frozen signal could not be aborted.
      const controller = new AbortController();
      if (callId !== undefined) running.set(callId, controller);
      let result: unknown;
      try {
        result = await execute(checked as ToolArgs<Ps, R>, { signal: controller.signal });
      } catch (error) {
        throw withToolName(name, error);
      } finally {
        if (callId !== undefined) running.delete(callId);
      }
      if (typeof result !== 'string') {
        throw Error(`${name}: returned ${q(typeof result)} instead of a string`);
      }
      return result;
    },
    help: () => help,
  };
  // The type says which of the two the spec asked for (TypeScript cannot
  // follow `cancellable` into C).
  type Made = Guarded<C extends true ? CancellableToolMethods : MadeToolMethods>;
  if (!cancellable) return makeExo(exoNameFor(name), FaeToolInterface, methods) as Made;
  return makeExo(exoNameFor(name), CancellableFaeToolInterface, {
    ...methods,
    cancel: (callId: string) => {
      running.get(callId)?.abort(Error(`${name}: the caller cancelled the call`));
    },
  }) as unknown as Made;
};
harden(makeFaeTool);

/** The third argument the daemon passes to a caplet's make(). */
export interface CapletOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
}

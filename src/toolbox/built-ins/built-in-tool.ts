// How the directory, mail and inspection built-ins are made. Unlike the
// first nine (built-in-tools.ts, kept as they were), these refuse an
// argument they do not take: a misspelt optional argument (`name` for
// `petName`, `force` for `replace`) would otherwise be silently ignored and
// the call would do something the model did not ask for.
import { makeExo } from '@endo/exo';
import { q } from '@endo/errors';
import { FaeToolInterface } from '../../tool-kit/fae-tool-interface.js';
import type { JsonSchema, ToolSchema } from '../../../providers/types.js';
import type { FaeTool } from '../discovered-tools.js';
import type { Ref } from '../../daemon/endo-types.js';
import { OUTSIDE_TURNS, type TurnScope } from './turn-scope.js';
import type { ToolPowers } from './sealed-powers.js';

export type Args = Readonly<Record<string, unknown>>;

export interface BuiltInSpec {
  readonly name: string;
  /** What the model reads: say what the tool is for and what it refuses. */
  readonly description: string;
  readonly parameters: Readonly<Record<string, JsonSchema>>;
  readonly required: readonly string[];
  /** Runs a call, with the scope of the turn that makes it (turn-scope.ts). */
  readonly execute: (args: Args, scope: TurnScope) => Promise<unknown>;
  /** Rejects arguments the call would refuse, before anyone is asked to approve it (argumentCheckOf). */
  readonly check?: (args: Args, scope: TurnScope) => Promise<void>;
}

/** The view of fae's powers a turn's built-ins work on: made for its principal (sealed-powers.ts). */
export type PowersIn = (scope: TurnScope) => Ref<ToolPowers>;

/** The schema the model is shown for a built-in: an object of named parameters. */
export const builtInSchema = (
  name: string,
  description: string,
  parameters: Readonly<Record<string, JsonSchema>>,
  required: readonly string[],
): ToolSchema =>
  harden({
    type: 'function',
    function: {
      name,
      description,
      parameters: { type: 'object', properties: parameters, required },
    },
  });
harden(builtInSchema);

/**
 * A built-in's own execute: its arguments, and the scope of the turn that
 * calls it (whose authority it acts with, turn-scope.ts; none for a call
 * from outside a turn, which has none).
 */
export type OwnExecute = (args: Args, scope?: TurnScope) => Promise<unknown>;

/**
 * Each built-in's own execute, for fae's own calls. An exo's guard checks
 * what any caller passes (a record in, a promise out), some 25 µs a call;
 * fae calls a built-in only with a record it made itself (executeTool
 * hardens the parsed arguments), and goes round the guard to its execute.
 */
const ownExecutes = new WeakMap<object, OwnExecute>();

/** Notes `execute` as the own execute of the built-in `tool` (an exo of fae's); returns the tool. */
export const withOwnExecute = <T extends object>(tool: T, execute: OwnExecute): T => {
  ownExecutes.set(tool, execute);
  return tool;
};
harden(withOwnExecute);

/** The own execute of a built-in; undefined for any other tool. */
export const ownExecuteOf = (tool: unknown) =>
  typeof tool === 'object' && tool !== null ? ownExecutes.get(tool) : undefined;
harden(ownExecuteOf);

/** A check of a call's arguments, made before its approval is asked for. */
export type ArgumentCheck = (args: Args, scope: TurnScope) => Promise<void>;
const argumentChecks = new WeakMap<object, ArgumentCheck>();

/** Notes `check` as what fae asks of `tool`'s arguments before its approval; returns the tool. */
export const withArgumentCheck = <T extends object>(tool: T, check: ArgumentCheck): T => {
  argumentChecks.set(tool, check);
  return tool;
};
harden(withArgumentCheck);

/** The check of a tool's arguments before its approval (a built-in's, a capability method's, a checking FaeTool's); undefined for any other. */
export const argumentCheckOf = (tool: unknown) =>
  typeof tool === 'object' && tool !== null ? argumentChecks.get(tool) : undefined;
harden(argumentCheckOf);

/** A built-in tool as [name, tool], ready for the map of built-ins. */
export const defineBuiltIn = ({
  name,
  description,
  parameters,
  required,
  execute,
  check,
}: BuiltInSpec): readonly [string, FaeTool] => {
  const schema = builtInSchema(name, description, parameters, required);
  const accepted = Object.keys(parameters);
  const checkNames = (args: Args) => {
    const unknown = Object.keys(args).find(key => !accepted.includes(key));
    if (unknown !== undefined) {
      const choices =
        accepted.length > 0
          ? `it accepts ${accepted.map(key => q(key)).join(', ')}`
          : 'it takes no arguments';
      throw Error(`unknown argument ${q(unknown)}; ${choices}`);
    }
  };
  const run = async (args: Args, scope: TurnScope = OUTSIDE_TURNS) => {
    checkNames(args);
    return harden(await execute(args, scope));
  };
  const tool = makeExo(`${name}BuiltIn`, FaeToolInterface, {
    schema: () => schema,
    // Reached through E() (never by fae, which goes round the guard): outside any turn.
    execute: (args: Args) => run(args),
    help: () => description,
  });
  argumentChecks.set(tool, async (args, scope) => {
    checkNames(args);
    await check?.(args, scope);
  });
  return harden([name, withOwnExecute(tool, run)]);
};
harden(defineBuiltIn);

/** "tools/greet" for a path, for the texts the model reads. */
export const showPath = (path: readonly string[]) => q(path.join('/'));
harden(showPath);

export const MESSAGE_NUMBER: JsonSchema = harden({
  type: 'integer',
  description: 'The message number, as shown in "Message #N".',
});

export const PET_NAME_PATH: JsonSchema = harden({
  type: 'string',
  description: 'A pet name such as "notes", or a path such as "tools/greet".',
});

export const REPLACE: JsonSchema = harden({
  type: 'boolean',
  description: 'true to replace what an existing name holds (refused by default).',
});

export const STRINGS: JsonSchema = harden({
  type: 'array',
  items: { type: 'string' },
  description: 'The text of the message. With attachments, strings[i] is the text before attachment i.',
});
export const EDGE_NAMES: JsonSchema = harden({
  type: 'array',
  items: { type: 'string' },
  description: 'Labels for attached capabilities, as the recipient will see them.',
});
export const PET_NAMES: JsonSchema = harden({
  type: 'array',
  items: { type: 'string' },
  description: 'Your pet names for the capabilities to attach, one per edge name.',
});

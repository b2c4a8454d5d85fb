// One method of a capability as a tool the model calls: `<pet name>__<method>`,
// its arguments named arg1, arg2, … in the order the method takes them
// (and `rest` for any more), each described by its pattern. A call decodes
// the arguments with the turn's authority (a capability is looked up by
// the name the model gives, in the view made for the turn), calls the
// method through E(), and keeps any capability it answers under a fresh
// name. The capability's own guard judges the call.
import { E } from '@endo/far';
import { q } from '@endo/errors';
import type { JsonSchema } from '../../../providers/types.js';
import type { FaeTool } from '../discovered-tools.js';
import { builtInSchema, defineBuiltIn } from '../built-ins/built-in-tool.js';
import type { TurnScope } from '../built-ins/turn-scope.js';
import { matches } from '@endo/patterns';
import { resultAsText } from '../result-text.js';
import { isCapabilityPattern, patternSchema, plainPattern } from './pattern-schema.js';
import { decodeArgument, type LookUp } from './pattern-arguments.js';
import { describeResult } from './capability-result.js';
import type { MethodPlan, ProbedCapability } from './capability-probe.js';

/** What a method tool reaches in fae's directory, with the authority of the turn that calls it. */
export interface TurnDirectory {
  readonly lookUp: LookUp;
  /** Keeps a capability under a fresh pet name starting with `base`; resolves to the name. */
  readonly keep: (capability: unknown, base: string) => Promise<string>;
}
export type DirectoryIn = (scope: TurnScope) => TurnDirectory;

const TOOL_NAME_CHARS = 64;

/** `greeter__greet`: the capability's pet name, two underscores, the method; within the providers' name rules. */
export const methodToolName = (petName: string, method: string) => {
  const name = `${petName}__${method}`.replace(/[^A-Za-z0-9_-]/g, '_');
  if (name.length <= TOOL_NAME_CHARS) return name;
  // Too long: cut, and tell cut names apart by a hash of the whole.
  let hash = 0x811c9dc5;
  for (const char of `${petName}\u0000${method}`) hash = Math.imul(hash ^ char.codePointAt(0)!, 0x01000193) >>> 0;
  return `${name.slice(0, TOOL_NAME_CHARS - 9)}_${hash.toString(16).padStart(8, '0')}`;
};
harden(methodToolName);

const argName = (index: number) => `arg${index + 1}`;

/** The parameters the model fills in, and which are required. */
const parametersOf = ({ guard }: MethodPlan): { parameters: Record<string, JsonSchema>; required: string[] } => {
  if (guard === undefined) {
    return {
      parameters: {
        args: {
          type: 'array',
          description:
            'The arguments, in order (this method declares none, so nothing is checked before the call). A capability is given as its pet name, and a big integer as text such as "+42".',
        },
      },
      required: [],
    };
  }
  const positional = [...guard.required, ...guard.optional];
  const parameters: Record<string, JsonSchema> = Object.fromEntries(positional.map((pattern, i) => [argName(i), patternSchema(pattern)]));
  // A rest guard's pattern is for the list of the further arguments, whole.
  if (guard.rest !== undefined) parameters.rest = { ...patternSchema(guard.rest), description: 'The further arguments, as one list, in order.' };
  return { parameters, required: guard.required.map((_, i) => argName(i)) };
};

/** The arguments in the order the method takes them, decoded by their patterns. */
const positionalArguments = async ({ guard }: MethodPlan, args: Readonly<Record<string, unknown>>, lookUp: LookUp) => {
  if (guard === undefined) {
    const given = args.args ?? [];
    if (!Array.isArray(given)) throw Error(`"args" must be a list of the arguments, not ${q(given)}`);
    return given;
  }
  const patterns = [...guard.required, ...guard.optional];
  const missing = guard.required.map((_, i) => argName(i)).filter(name => !(name in args));
  if (missing.length > 0) throw Error(`missing ${missing.map(name => q(name)).join(', ')}`);
  const rest = args.rest ?? [];
  if (!Array.isArray(rest)) throw Error(`"rest" must be the list of the further arguments, not ${q(rest)}`);
  // Optional arguments are passed up to the last one given (all of them before further ones); one left out before it is undefined.
  const last = rest.length > 0 ? patterns.length : patterns.reduce((end: number, _, i) => (argName(i) in args ? i + 1 : end), 0);
  const [positional, further] = await Promise.all([
    Promise.all(patterns.slice(0, last).map((pattern, i) => decodeArgument(args[argName(i)], pattern, argName(i), lookUp))),
    guard.rest === undefined ? [] : decodeArgument(rest, guard.rest, 'rest', lookUp),
  ]);
  // The guard judges again at the call; here, its refusal names the argument and shows the value.
  const judged: (readonly [string, unknown, unknown])[] = positional.map((value, i) => [argName(i), value, patterns[i]] as const);
  if (guard.rest !== undefined) judged.push(['rest', further, guard.rest]);
  for (const [where, value, pattern] of judged) {
    if (!matches(harden(value) as never, plainPattern(pattern) as never)) {
      // Written out here: a guard's own refusal hides the values it names.
      throw Error(`${where} is ${resultAsText(value)}, which the method refuses: it must be ${JSON.stringify(patternSchema(pattern))}`);
    }
  }
  return [...positional, ...(Array.isArray(further) ? further : [])];
};

const describeMethod = (petName: string, probed: ProbedCapability, plan: MethodPlan) => {
  const what = probed.interfaceName === undefined ? '' : ` (${probed.interfaceName})`;
  const about = plan.help ?? probed.help;
  return [`Calls ${plan.method} of the capability tools/${petName}${what}.`, about].filter(Boolean).join(' ');
};

export interface MethodToolOptions {
  readonly capability: unknown;
  readonly petName: string;
  readonly probed: ProbedCapability;
  readonly plan: MethodPlan;
  readonly directoryIn: DirectoryIn;
  /** Why the capability may no longer be called (removed or replaced), if it may not. */
  readonly gone: () => string | undefined;
}

/** The method as a tool, its schema known without asking it. */
export const makeMethodTool = ({ capability, petName, probed, plan, directoryIn, gone }: MethodToolOptions) => {
  const name = methodToolName(petName, plan.method);
  const { parameters, required } = parametersOf(plan);
  const description = describeMethod(petName, probed, plan);
  const base = `${petName}-${plan.method}`.toLowerCase().replace(/[^a-z0-9-]+/g, '-').slice(0, 100);
  // The arguments as the check decoded them, before the host was asked, by
  // turn and call: the call runs with exactly what was shown and judged
  // (a name rebound meanwhile changes nothing), and looks nothing up twice.
  const checked = new WeakMap<TurnScope, Map<string, Promise<unknown[]>>>();
  const callsIn = (scope: TurnScope) => {
    let calls = checked.get(scope);
    if (calls === undefined) {
      calls = new Map();
      checked.set(scope, calls);
    }
    return calls;
  };
  /** The arguments of a call decoded at its check (taken, once), else decoded now. */
  const decoded = (args: Readonly<Record<string, unknown>>, scope: TurnScope) => {
    const key = JSON.stringify(args);
    const calls = callsIn(scope);
    const found = calls.get(key);
    calls.delete(key);
    return found ?? positionalArguments(plan, args, directoryIn(scope).lookUp);
  };
  const [, tool] = defineBuiltIn({
    name,
    description,
    parameters,
    required,
    // Before the host is asked: a call its own guard would refuse is refused unasked.
    check: async (args, scope) => {
      const positional = positionalArguments(plan, args, directoryIn(scope).lookUp);
      const key = JSON.stringify(args);
      const calls = callsIn(scope);
      calls.set(key, positional);
      await positional.catch(error => {
        if (calls.get(key) === positional) calls.delete(key);
        throw error;
      });
    },
    execute: async (args, scope) => {
      const why = gone();
      if (why !== undefined) throw Error(why);
      const directory = directoryIn(scope);
      const positional = harden(await decoded(args, scope));
      // `any`: a remote reference, whose methods are not known here.
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const value = await (E(capability as any) as any)[plan.method](...positional);
      return describeResult(value, found => directory.keep(found, base));
    },
  });
  const capabilityArgs = plan.guard === undefined ? [] : [...plan.guard.required, ...plan.guard.optional].flatMap((pattern, i) => (isCapabilityPattern(pattern) ? [argName(i)] : []));
  return harden({ name, tool: tool as FaeTool, schema: builtInSchema(name, description, parameters, required), capabilityArgs });
};
harden(makeMethodTool);

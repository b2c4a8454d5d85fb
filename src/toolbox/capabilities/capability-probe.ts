// What a capability says of itself, asked once per capability: its method
// names and interface guard (one round trip, both at once), then its help
// (the whole, and each method's, at once). Every answer is bounded in time:
// a capability is code someone else wrote. What it declares in its guard is
// how its methods are offered; a method without a guard is offered with a
// plain list of arguments (the documented fallback).
import { E } from '@endo/far';
import { getInterfaceGuardPayload, getMethodGuardPayload } from '@endo/patterns';
import { withTimeout } from '../../timeout.js';
import { resultAsText } from '../result-text.js';

/** One method as the model may call it. */
export interface MethodPlan {
  readonly method: string;
  /** The patterns of its arguments, in order; undefined for a method the guard does not describe. */
  readonly guard?: {
    readonly required: readonly unknown[];
    readonly optional: readonly unknown[];
    readonly rest?: unknown;
  };
  /** What its help says of it, if anything. */
  readonly help?: string;
}

export interface ProbedCapability {
  /** The name its guard gives its interface, if it has a guard. */
  readonly interfaceName?: string;
  /** What its help() says of the whole. */
  readonly help?: string;
  readonly methods: readonly MethodPlan[];
}

/** The methods a model never calls as tools: the meta-methods and help itself. */
const isOffered = (name: unknown): name is string => typeof name === 'string' && !name.startsWith('__') && name !== 'help';

/** At most this many methods' help is asked for, so one capability cannot flood the daemon. */
const MOST_METHOD_HELPS = 64;

/** Longest help text kept for a description; the rest is left to inspect. */
const HELP_CHARS = 600;

const shortHelp = (value: unknown) => {
  if (value === undefined || value === null) return undefined;
  const text = resultAsText(value).trim();
  if (text === '') return undefined;
  return text.length <= HELP_CHARS ? text : `${text.slice(0, HELP_CHARS - 1)}…`;
};

/** The method guards an interface guard declares, by method name; undefined when there is none to read. */
const methodGuardsOf = (guard: unknown) => {
  if (guard === undefined) return undefined;
  try {
    const payload = getInterfaceGuardPayload(guard as never) as { interfaceName: string; methodGuards: Record<string, unknown> };
    return payload;
  } catch {
    return undefined;
  }
};

const planOf = (method: string, methodGuard: unknown): MethodPlan => {
  if (methodGuard === undefined) return { method };
  try {
    const { argGuards, optionalArgGuards = [], restArgGuard } = getMethodGuardPayload(methodGuard as never) as {
      argGuards: unknown[];
      optionalArgGuards?: unknown[];
      restArgGuard?: unknown;
    };
    return { method, guard: { required: argGuards, optional: optionalArgGuards, ...(restArgGuard === undefined ? {} : { rest: restArgGuard }) } };
  } catch {
    return { method };
  }
};

/** What any capability may answer about itself, asked together: its method names and its guard (either may be missing). */
export interface FirstAnswers {
  readonly names?: readonly string[];
  readonly guard?: unknown;
  /** Why the names are missing, when they are. */
  readonly problem?: string;
}

// `any`: a remote reference, whose methods are not known here.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Target = any;

const bounded = <T>(promise: Promise<T>, what: string, timeoutMs: number) =>
  withTimeout(promise, timeoutMs, () => `${what} did not answer within ${timeoutMs} ms`);

/** The method names and guard of `capability`, in one round trip. */
export const askMethodsAndGuard = async (capability: unknown, timeoutMs: number): Promise<FirstAnswers> => {
  const target = capability as Target;
  const [names, guard] = await Promise.allSettled([
    bounded(E(target).__getMethodNames__() as Promise<unknown>, '__getMethodNames__()', timeoutMs),
    bounded(E(target).__getInterfaceGuard__() as Promise<unknown>, '__getInterfaceGuard__()', timeoutMs),
  ]);
  const listed = names.status === 'fulfilled' && Array.isArray(names.value) ? names.value.filter((name): name is string => typeof name === 'string') : undefined;
  return harden({
    ...(listed === undefined ? { problem: names.status === 'rejected' ? String(names.reason?.message ?? names.reason) : 'no list' } : { names: listed }),
    ...(guard.status === 'fulfilled' && guard.value !== undefined ? { guard: guard.value } : {}),
  });
};
harden(askMethodsAndGuard);

/**
 * What `capability` offers, from `first` (askMethodsAndGuard's answers) and
 * its help. Rejects only when it said nothing at all (not even its method names).
 */
export const probeCapability = async (capability: unknown, timeoutMs: number, first: FirstAnswers): Promise<ProbedCapability> => {
  const target = capability as Target;
  const bound = <T>(promise: Promise<T>, what: string) => bounded(promise, what, timeoutMs);
  const declared = methodGuardsOf(first.guard);
  const listed = first.names;
  if (listed === undefined && declared === undefined) {
    throw Error(`it did not say which methods it has (${first.problem})`);
  }
  const methods = [...new Set([...(listed ?? []), ...Object.keys(declared?.methodGuards ?? {})])].filter(isOffered).sort();
  const hasHelp = listed === undefined || listed.includes('help');
  const helps = hasHelp
    ? await Promise.allSettled([
        bound(E(target).help() as Promise<unknown>, 'help()'),
        ...methods.slice(0, MOST_METHOD_HELPS).map(method => bound(E(target).help(method) as Promise<unknown>, `help(${method})`)),
      ])
    : [];
  const helpAt = (index: number) => (helps[index]?.status === 'fulfilled' ? shortHelp((helps[index] as PromiseFulfilledResult<unknown>).value) : undefined);
  const whole = helpAt(0);
  return harden({
    ...(declared === undefined ? {} : { interfaceName: declared.interfaceName }),
    ...(whole === undefined ? {} : { help: whole }),
    methods: methods.map((method, index) => {
      const plan = planOf(method, declared?.methodGuards[method]);
      const own = helpAt(index + 1);
      // A help that ignores its argument says the same of every method: no news.
      return own === undefined || own === whole ? plan : { ...plan, help: own };
    }),
  });
};
harden(probeCapability);

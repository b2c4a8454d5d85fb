// Built-ins that let the model see what it may call before calling it:
// inspect (what a capability in the directory says of itself) and help
// (the guest powers' own documentation). A capability is code someone else
// wrote: its answers are bounded in time, so a silent one cannot hold up a
// turn.
import { E } from '@endo/far';
import { passStyleOf } from '@endo/marshal';
import { withTimeout } from '../../timeout.js';
import type { FaeTool } from '../discovered-tools.js';
import { readNamePath, readOptionalString } from './built-in-arguments.js';
import { PET_NAME_PATH, type PowersIn, defineBuiltIn, showPath } from './built-in-tool.js';
import { resultAsText } from '../result-text.js';

/** What any capability may answer; neither is guaranteed. */
interface SelfDescribing {
  help(): unknown;
  __getMethodNames__(): readonly (string | symbol)[];
}

export interface InspectionToolOptions {
  /** Upper bound of a capability's help() or method-name answer, in ms. */
  readonly timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 5_000;

const reasonOf = (outcome: PromiseSettledResult<unknown>) =>
  outcome.status === 'rejected'
    ? outcome.reason instanceof Error
      ? outcome.reason.message
      : String(outcome.reason)
    : 'no answer';

export const makeInspectionTools = (
  powersIn: PowersIn,
  { timeoutMs = DEFAULT_TIMEOUT_MS }: InspectionToolOptions = {},
): readonly (readonly [string, FaeTool])[] =>
  harden([
    defineBuiltIn({
      name: 'inspect',
      description:
        'See what a capability in your directory offers before using it: its own help text and its method names.',
      parameters: { petName: PET_NAME_PATH },
      required: ['petName'],
      execute: async (args, scope) => {
        const path = readNamePath(args, 'petName');
        const shown = showPath(path);
        const value = await E(powersIn(scope)).lookup(path);
        const style = passStyleOf(harden(value));
        if (style !== 'remotable') {
          return `${shown} holds plain data (${style}), not a capability; lookup shows it.`;
        }
        const target = value as SelfDescribing;
        const bound = <T>(promise: Promise<T>, method: string) =>
          withTimeout(promise, timeoutMs, () => `${method} did not answer within ${timeoutMs} ms`);
        // One round trip: both questions go out together.
        const [help, names] = await Promise.allSettled([
          bound(E(target).help(), 'help()'),
          bound(E(target).__getMethodNames__(), '__getMethodNames__()'),
        ]);
        const methods =
          names.status === 'fulfilled' && Array.isArray(names.value)
            ? names.value.filter((name): name is string => typeof name === 'string' && !name.startsWith('__'))
            : undefined;
        const lines: string[] = [];
        if (help.status === 'fulfilled' && help.value !== undefined) {
          lines.push(`${shown} says: ${resultAsText(help.value)}`);
        }
        if (methods !== undefined) {
          lines.push(`Methods of ${shown}: ${methods.length > 0 ? methods.join(', ') : '(none)'}.`);
        }
        if (lines.length === 0) {
          throw Error(
            `${shown} did not describe itself: help() failed (${reasonOf(help)}) and __getMethodNames__() failed (${reasonOf(names)})`,
          );
        }
        return lines.join('\n');
      },
    }),
    defineBuiltIn({
      name: 'help',
      description:
        'Read the documentation of your own powers (what the daemon lets you do), in general or for one method such as "request".',
      parameters: {
        methodName: { type: 'string', description: 'One method to explain. Omit for the overview.' },
      },
      required: [],
      execute: async (args, scope) => {
        const methodName = readOptionalString(args, 'methodName');
        const powers = powersIn(scope);
        return methodName === undefined ? E(powers).help() : E(powers).help(methodName);
      },
    }),
  ]);
harden(makeInspectionTools);

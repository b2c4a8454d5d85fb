// Built-ins over fae's petname directory beyond list/lookup/store/remove:
// has, move, copy, makeDirectory and identify. Each is one or two calls
// through E() on the guest powers, the same in every daemon generation.
// move, copy and makeDirectory refuse to overwrite a name unless the model
// says `replace: true`: the daemon's own calls overwrite silently, and a
// model that picked a taken name would lose what it held without knowing.
import { E } from '@endo/far';
import { q } from '@endo/errors';
import type { Ref } from '../../daemon/endo-types.js';
import type { FaeTool } from '../discovered-tools.js';
import { readFlag, readNamePath } from './built-in-arguments.js';
import { type Args, PET_NAME_PATH, type PowersIn, REPLACE, defineBuiltIn, showPath } from './built-in-tool.js';
import type { ToolPowers } from './sealed-powers.js';
import type { TurnScope } from './turn-scope.js';

const samePath = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((name, i) => name === b[i]);

export const makeDirectoryTools = (powersIn: PowersIn): readonly (readonly [string, FaeTool])[] => {
  /** Throws, naming the argument, if `path` is bound and replacing was not asked for. */
  const refuseTaken = async (powers: Ref<ToolPowers>, path: readonly string[], key: string, replace: boolean) => {
    if (replace) return;
    if (await E(powers).has(...path)) {
      throw Error(
        `${key}: ${showPath(path)} already exists; choose an unused name (list shows them), or pass replace: true to replace what it holds`,
      );
    }
  };

  /** move and copy: the same checks, then the daemon's call. */
  const relocate = (verb: 'move' | 'copy') => async (args: Args, scope: TurnScope) => {
    const powers = powersIn(scope);
    const from = readNamePath(args, 'from');
    const to = readNamePath(args, 'to');
    const replace = readFlag(args, 'replace');
    if (samePath(from, to)) {
      throw Error(`from and to are both ${showPath(from)}; give a different name as to`);
    }
    await refuseTaken(powers, to, 'to', replace);
    await E(powers)[verb](from, to);
    return `${verb === 'move' ? 'Moved' : 'Copied'} ${showPath(from)} to ${showPath(to)}.`;
  };

  return harden([
    defineBuiltIn({
      name: 'has',
      description: 'Check whether a name (or a path such as "tools/greet") exists in your directory.',
      parameters: { petName: PET_NAME_PATH },
      required: ['petName'],
      execute: async (args, scope) => {
        const path = readNamePath(args, 'petName');
        const exists = await E(powersIn(scope)).has(...path);
        return exists ? `Yes, ${showPath(path)} exists.` : `No, ${showPath(path)} does not exist.`;
      },
    }),
    defineBuiltIn({
      name: 'move',
      description:
        'Rename something, or move it into a directory ("notes" to "archive/notes"). Refuses a taken name unless replace is true.',
      parameters: {
        from: { type: 'string', description: 'Its current name or path.' },
        to: { type: 'string', description: 'Its new name or path.' },
        replace: REPLACE,
      },
      required: ['from', 'to'],
      execute: relocate('move'),
    }),
    defineBuiltIn({
      name: 'copy',
      description:
        'Give something a second name; both then refer to the same thing. from may be a path into your mail directory. Refuses a taken name unless replace is true.',
      parameters: {
        from: { type: 'string', description: 'The existing name or path.' },
        to: { type: 'string', description: 'The new name or path.' },
        replace: REPLACE,
      },
      required: ['from', 'to'],
      execute: relocate('copy'),
    }),
    defineBuiltIn({
      name: 'makeDirectory',
      description:
        'Make a new, empty directory under a pet name. Refuses an existing name unless replace is true (which empties it).',
      parameters: { petName: PET_NAME_PATH, replace: REPLACE },
      required: ['petName'],
      execute: async (args, scope) => {
        const powers = powersIn(scope);
        const path = readNamePath(args, 'petName');
        const replace = readFlag(args, 'replace');
        await refuseTaken(powers, path, 'petName', replace);
        await E(powers).makeDirectory(path);
        return `Made the empty directory ${showPath(path)}.`;
      },
    }),
    defineBuiltIn({
      name: 'identify',
      description:
        'Get the identifier (and locator) of what a name refers to; two names refer to the same thing when their identifiers are equal.',
      parameters: { petName: PET_NAME_PATH },
      required: ['petName'],
      execute: async (args, scope) => {
        const path = readNamePath(args, 'petName');
        const powers = powersIn(scope);
        // Both at once; a daemon without locate still answers the id.
        const [id, locator] = await Promise.all([
          E(powers).identify(...path),
          E(powers).locate(...path).catch(() => undefined),
        ]);
        if (id === undefined) {
          throw Error(`petName: nothing is named ${showPath(path)}; list shows your names`);
        }
        return locator === undefined || locator === id
          ? `${showPath(path)} is ${q(id)}.`
          : `${showPath(path)} is ${q(id)} (locator ${q(locator)}).`;
      },
    }),
  ]);
};
harden(makeDirectoryTools);

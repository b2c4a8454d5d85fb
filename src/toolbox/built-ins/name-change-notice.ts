// Built-ins that bind or unbind names (move, copy, makeDirectory, adopt)
// tell the tool registry which paths they touched once they succeed, so a
// change fae makes under tools/ is taken in before the model is asked
// again, without waiting for the directory's follower.
import { E, Far } from '@endo/far';
import { Fail } from '@endo/errors';
import type { FaeTool } from '../discovered-tools.js';
import { readNamePath } from './built-in-arguments.js';
import { ownExecuteOf, withOwnExecute } from './built-in-tool.js';
import type { TurnScope } from './turn-scope.js';

type Args = Readonly<Record<string, unknown>>;

/** The name paths each name-changing built-in touches, read from its arguments. */
const TOUCHED: Readonly<Record<string, (args: Args) => readonly (readonly string[])[]>> = harden({
  move: (args: Args) => [readNamePath(args, 'from'), readNamePath(args, 'to')],
  copy: (args: Args) => [readNamePath(args, 'to')],
  makeDirectory: (args: Args) => [readNamePath(args, 'petName')],
  adopt: (args: Args) => [readNamePath(args, 'petName')],
});

export const withNameChangeNotice = (
  name: string,
  tool: FaeTool,
  onNameChanged: ((path: readonly string[]) => Promise<void>) | undefined,
): FaeTool => {
  const touched = TOUCHED[name];
  if (touched === undefined || onNameChanged === undefined) return tool;
  const own = ownExecuteOf(tool) ?? Fail`built-in ${name} has no own execute`;
  // With the scope of the turn that calls (turn-scope.ts), as the built-in itself takes it.
  const execute = async (args: Args, scope?: TurnScope) => {
    const result = await own(args, scope);
    await Promise.all(touched(args).map(path => onNameChanged(path)));
    return result;
  };
  const wrapper = Far('BuiltIn', {
    schema: () => E(tool).schema(),
    help: () => E(tool).help(),
    execute: (args: Args) => execute(args),
  }) as unknown as FaeTool;
  return withOwnExecute(wrapper, execute);
};
harden(withNameChangeNotice);

// Built-ins that bind or unbind names (move, copy, makeDirectory, adopt)
// tell the tool registry which paths they touched once they succeed, so a
// change fae makes under tools/ is taken in before the model is asked
// again, without waiting for the directory's follower.
import { E, Far } from '@endo/far';
import type { FaeTool } from '../discovered-tools.js';
import { readNamePath } from './built-in-arguments.js';

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
  return Far('BuiltIn', {
    schema: () => E(tool).schema(),
    help: () => E(tool).help(),
    execute: async (args: Args) => {
      const result = await E(tool).execute(args);
      await Promise.all(touched(args).map(path => onNameChanged(path)));
      return result;
    },
  }) as unknown as FaeTool;
};
harden(withNameChangeNotice);

// FaeTool caplet: list a directory under the root fixed at creation
// (FAE_CWD), sorted, with directories marked by a trailing "/".
import fs from 'node:fs';
import path from 'node:path';
import { q } from '@endo/errors';
import { type CapletOptions, makeFaeTool } from '../src/tool-kit/make-fae-tool.js';
import { explainFsError, fsRootFromEnv } from '../src/tool-kit/fs-root.js';

// A listing is for the model to read; past this it is noise and cost.
const MAX_ENTRIES = 1_000;

// A symlink to a directory is shown as a directory; where it leads is
// checked only when something inside it is used.
const isDirectoryEntry = async (dir: string, entry: fs.Dirent) => {
  if (entry.isDirectory()) return true;
  if (!entry.isSymbolicLink()) return false;
  const target = await fs.promises.stat(path.join(dir, entry.name)).catch(() => undefined);
  return target?.isDirectory() ?? false;
};

export const make = (_powers: unknown, _context: unknown, { env }: CapletOptions = {}) => {
  const fsRoot = fsRootFromEnv(env);
  return makeFaeTool({
    name: 'listDir',
    description: `List the contents of a directory, one entry per line, sorted; directories end with "/". Paths are relative to ${fsRoot.root}.`,
    parameters: {
      dirPath: {
        type: 'string',
        description: 'Path of the directory, relative to the root. Defaults to "." (the root itself).',
      },
    },
    required: [],
    help: `Lists directories, marking subdirectories with "/". ${fsRoot.description}`,
    execute: async ({ dirPath = '.' }) => {
      const realPath = await fsRoot.resolveExisting(dirPath);
      let entries: fs.Dirent[];
      try {
        entries = await fs.promises.readdir(realPath, { withFileTypes: true });
      } catch (error) {
        if ((error as { code?: unknown }).code === 'ENOTDIR') {
          throw Error(`${q(dirPath)} is a file, not a directory; use readFile to read it`);
        }
        throw explainFsError(error, dirPath);
      }
      if (entries.length === 0) return `(${fsRoot.display(realPath)} is empty)`;
      const names = await Promise.all(
        entries.map(async entry =>
          (await isDirectoryEntry(realPath, entry)) ? `${entry.name}/` : entry.name,
        ),
      );
      // Plain code-unit order: stable across locales (and SES tames
      // localeCompare anyway).
      names.sort();
      const shown = names.slice(0, MAX_ENTRIES);
      const rest = names.length - shown.length;
      return rest > 0
        ? `${shown.join('\n')}\n[listDir: ${rest} more entries not shown]`
        : shown.join('\n');
    },
  });
};
harden(make);

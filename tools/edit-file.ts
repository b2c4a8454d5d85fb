// FaeTool caplet: replace one exact piece of text in a file under the root
// fixed at creation (FAE_CWD). The replacement is literal and must match
// exactly once; line endings and a byte-order mark are kept
// (see src/literal-edit.ts).
import fs from 'node:fs';
import { q } from '@endo/errors';
import { type CapletOptions, makeFaeTool } from '../src/tool-kit/make-fae-tool.js';
import { explainFsError, fsRootFromEnv, writeChecked } from '../src/tool-kit/fs-root.js';
import { replaceExactlyOnce } from '../src/tool-kit/literal-edit.js';

// Editing reads the whole file; refuse what is clearly not a source file.
const MAX_EDIT_BYTES = 10 * 1024 * 1024;

export const make = (_powers: unknown, _context: unknown, { env }: CapletOptions = {}) => {
  const fsRoot = fsRootFromEnv(env);
  return makeFaeTool({
    name: 'editFile',
    description: `Edit a file by replacing one exact occurrence of oldString with newString. oldString must occur exactly once in the file; include enough surrounding text to make it unique. Paths are relative to ${fsRoot.root}.`,
    parameters: {
      filePath: {
        type: 'string',
        description: 'Path of the file, relative to the root directory.',
      },
      oldString: {
        type: 'string',
        description: 'The exact text to replace (it must occur exactly once).',
      },
      newString: { type: 'string', description: 'The text to put in its place, taken literally.' },
    },
    required: ['filePath', 'oldString', 'newString'],
    // Runs or writes something: the host approves each call (unless it says otherwise).
    needsApproval: true,
    help: `Replaces one exact, unique piece of text in a file, keeping its line endings and byte-order mark. ${fsRoot.description}`,
    execute: async ({ filePath, oldString, newString }) => {
      const realPath = await fsRoot.resolveExisting(filePath);
      let content: string;
      try {
        const stats = await fs.promises.stat(realPath);
        if (stats.isDirectory()) {
          throw Error(`${q(filePath)} is a directory, not a file`);
        }
        if (!stats.isFile()) {
          throw Error(`${q(filePath)} is not a regular file (a device, pipe or socket)`);
        }
        if (stats.size > MAX_EDIT_BYTES) {
          throw Error(
            `${q(filePath)} is ${stats.size} bytes, more than the ${MAX_EDIT_BYTES} editFile handles`,
          );
        }
        content = await fs.promises.readFile(realPath, 'utf8');
      } catch (error) {
        throw explainFsError(error, filePath);
      }
      const display = fsRoot.display(realPath);
      const edited = replaceExactlyOnce(content, oldString, newString, filePath);
      await writeChecked(realPath, edited, filePath);
      return `Edited ${display}: replaced 1 occurrence (${oldString.length} characters with ${newString.length}).`;
    },
  });
};
harden(make);

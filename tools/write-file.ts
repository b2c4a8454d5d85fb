// FaeTool caplet: create or overwrite a text file under the root fixed at
// creation (FAE_CWD), making missing parent directories inside the root.
import fs from 'node:fs';
import { q } from '@endo/errors';
import { type CapletOptions, makeFaeTool } from '../src/tool-kit/make-fae-tool.js';
import { fsRootFromEnv, writeChecked } from '../src/tool-kit/fs-root.js';

export const make = (_powers: unknown, _context: unknown, { env }: CapletOptions = {}) => {
  const fsRoot = fsRootFromEnv(env);
  return makeFaeTool({
    name: 'writeFile',
    description: `Create or overwrite a text file with the given contents. Paths are relative to ${fsRoot.root}. Missing parent directories are created.`,
    parameters: {
      filePath: {
        type: 'string',
        description: 'Path of the file, relative to the root directory.',
      },
      contents: { type: 'string', description: 'The complete new contents of the file.' },
    },
    required: ['filePath', 'contents'],
    // Runs or writes something: the host approves each call (unless it says otherwise).
    needsApproval: true,
    help: `Creates or overwrites text files, creating parent directories as needed. ${fsRoot.description}`,
    execute: async ({ filePath, contents }) => {
      const realPath = await fsRoot.resolveForWrite(filePath);
      const existing = await fs.promises.stat(realPath).catch(() => undefined);
      if (existing?.isDirectory()) {
        throw Error(`${q(filePath)} is a directory; give a file path`);
      }
      if (existing && !existing.isFile()) {
        throw Error(`${q(filePath)} is not a regular file (a device, pipe or socket)`);
      }
      await writeChecked(realPath, contents, filePath);
      const verb = existing ? 'Overwrote' : 'Created';
      return `${verb} ${fsRoot.display(realPath)} (${contents.length} characters).`;
    },
  });
};
harden(make);

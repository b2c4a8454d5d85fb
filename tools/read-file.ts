// FaeTool caplet: read a text file under the root fixed at creation
// (FAE_CWD). Only the beginning of a large file is read: the answer is
// capped, so reading the rest would be wasted memory (upstream read it all).
import fs from 'node:fs';
import { q } from '@endo/errors';
import { type CapletOptions, makeFaeTool } from '../src/tool-kit/make-fae-tool.js';
import { explainFsError, fsRootFromEnv } from '../src/tool-kit/fs-root.js';

export const MAX_CHARACTERS = 50_000;
// A UTF-8 character is at most 4 bytes, so this many bytes always hold
// MAX_CHARACTERS characters when the file has that many.
const MAX_BYTES = MAX_CHARACTERS * 4;
// Text files do not contain NUL; looking at the start is enough to tell.
const BINARY_PROBE_BYTES = 8_000;

const readStart = async (realPath: string, userPath: string) => {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(
      realPath,
      // O_NONBLOCK: opening a FIFO would otherwise wait for a writer forever.
      fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK,
    );
  } catch (error) {
    throw explainFsError(error, userPath);
  }
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) {
      throw Error(`${q(userPath)} is a directory; use listDir to see what it holds`);
    }
    if (!stats.isFile()) {
      throw Error(`${q(userPath)} is not a regular file (a device, pipe or socket)`);
    }
    const buffer = Buffer.alloc(Math.min(stats.size, MAX_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return { bytes: buffer.subarray(0, bytesRead), size: stats.size };
  } finally {
    await handle.close();
  }
};

export const make = (_powers: unknown, _context: unknown, { env }: CapletOptions = {}) => {
  const fsRoot = fsRootFromEnv(env);
  return makeFaeTool({
    name: 'readFile',
    description: `Read the contents of a text file. Paths are relative to ${fsRoot.root}. Returns at most ${MAX_CHARACTERS} characters, with a note when the file is longer.`,
    parameters: {
      filePath: {
        type: 'string',
        description: 'Path of the file, relative to the root directory.',
      },
    },
    required: ['filePath'],
    help: `Reads text files (at most ${MAX_CHARACTERS} characters per call). ${fsRoot.description}`,
    execute: async ({ filePath }) => {
      const realPath = await fsRoot.resolveExisting(filePath);
      const { bytes, size } = await readStart(realPath, filePath);
      if (bytes.subarray(0, BINARY_PROBE_BYTES).includes(0)) {
        throw Error(
          `${q(filePath)} looks like a binary file (${size} bytes); readFile returns text only`,
        );
      }
      const text = new TextDecoder('utf-8').decode(bytes);
      const wholeFile = bytes.length === size;
      if (wholeFile && text.length <= MAX_CHARACTERS) return text;
      // Do not cut a surrogate pair in half.
      let end = MAX_CHARACTERS;
      const last = text.charCodeAt(end - 1);
      if (last >= 0xd800 && last <= 0xdbff) end -= 1;
      const total = wholeFile ? `${text.length} characters` : `${size} bytes`;
      return `${text.slice(0, end)}\n\n[readFile: showing the first ${end} characters of ${q(filePath)}, which has ${total} in all]`;
    },
  });
};
harden(make);

// FaeTool caplet `edit`: one or several literal replacements in a file
// under the root fixed at creation (FAE_CWD), applied all together or not
// at all, answered with a unified diff. Designed for models: each oldText
// must occur exactly once, line breaks are matched whether the model writes
// "\n" or "\r\n", and an error names the edit that failed and why
// (src/tool-kit/multi-edit.ts). The file is replaced atomically.
import fs from 'node:fs';
import { q } from '@endo/errors';
import { type CapletOptions, makeFaeTool } from '../src/tool-kit/make-fae-tool.js';
import { explainFsError, fsRootFromEnv } from '../src/tool-kit/fs-root.js';
import { applyEdits, editsFromArguments } from '../src/tool-kit/multi-edit.js';
import { FileChanged, replaceFileAtomically } from '../src/tool-kit/atomic-write.js';

// Editing reads the whole file; refuse what is clearly not a source file.
const MAX_EDIT_BYTES = 10 * 1024 * 1024;

/** The file's text, refusing what cannot be edited as UTF-8 text. */
const readText = async (realPath: string, userPath: string) => {
  let bytes: Buffer;
  try {
    const stats = await fs.promises.stat(realPath);
    if (stats.isDirectory()) {
      throw Error(`${q(userPath)} is a directory, not a file`);
    }
    if (!stats.isFile()) {
      throw Error(`${q(userPath)} is not a regular file (a device, pipe or socket)`);
    }
    if (stats.size > MAX_EDIT_BYTES) {
      throw Error(`${q(userPath)} is ${stats.size} bytes, more than the ${MAX_EDIT_BYTES} edit handles`);
    }
    bytes = await fs.promises.readFile(realPath);
  } catch (error) {
    throw explainFsError(error, userPath);
  }
  const text = bytes.toString('utf8');
  // Decoding replaces invalid bytes; writing that back would corrupt them.
  if (text.includes('\0') || !Buffer.from(text, 'utf8').equals(bytes)) {
    throw Error(`${q(userPath)} is not a UTF-8 text file; edit changes text files only`);
  }
  return text;
};

export const make = (_powers: unknown, _context: unknown, { env }: CapletOptions = {}) => {
  const fsRoot = fsRootFromEnv(env);
  return makeFaeTool({
    name: 'edit',
    description: `Change a text file by replacing exact text. Give path and either oldText and newText, or edits: a list of {"oldText", "newText"} pairs for several changes at once. Each oldText must be copied exactly from the file and occur in it exactly once; add neighbouring lines to make it unique. Edits must not overlap. An empty newText deletes. Either every edit is applied or none is. Returns a diff of the change. Paths are relative to ${fsRoot.root}.`,
    parameters: {
      path: {
        type: 'string',
        description: 'Path of the file, relative to the root directory.',
      },
      oldText: {
        type: 'string',
        description: 'For one change: the exact text to replace. It must occur exactly once in the file.',
      },
      newText: {
        type: 'string',
        description: 'For one change: the text to put in its place, taken literally. "" deletes oldText.',
      },
      edits: {
        type: 'array',
        description:
          'For several changes at once, instead of oldText and newText: a list of {"oldText": "…", "newText": "…"}, each matched against the file as it was before this call.',
        items: {
          type: 'object',
          properties: {
            oldText: { type: 'string', description: 'The exact text to replace (must occur exactly once).' },
            newText: { type: 'string', description: 'The text to put in its place ("" deletes).' },
          },
          required: ['oldText', 'newText'],
        },
      },
    },
    required: ['path'],
    // Runs or writes something: the host approves each call (unless it says otherwise).
    needsApproval: true,
    help: `Applies exact, unique text replacements to a file, all or none, keeping its line endings, byte-order mark and permissions, and returns a unified diff. ${fsRoot.description}`,
    execute: async ({ path: filePath, oldText, newText, edits }) => {
      // Checked before the file is touched: a malformed call reads nothing.
      const wanted = editsFromArguments({ oldText, newText, edits });
      const realPath = await fsRoot.resolveExisting(filePath);
      const display = fsRoot.display(realPath);
      const content = await readText(realPath, filePath);
      const outcome = applyEdits(content, wanted, display);
      if (outcome.content === content) {
        return `The ${outcome.applied === 1 ? 'edit leaves' : `${outcome.applied} edits leave`} ${display} unchanged; nothing was written.`;
      }
      // Someone else may write the file while the edit is worked out: their
      // change is not overwritten (checked last before the replacement).
      await replaceFileAtomically(realPath, outcome.content, filePath, async () => {
        const now = await fs.promises.readFile(realPath).catch(() => undefined);
        if (now === undefined || now.toString('utf8') !== content) {
          throw new FileChanged(
            `${q(filePath)} changed while it was being edited; nothing was written. Read it again and redo the edit.`,
          );
        }
      });
      const count = outcome.applied === 1 ? '1 edit' : `${outcome.applied} edits`;
      return `Applied ${count} to ${display}.\n${outcome.diff}`;
    },
  });
};
harden(make);

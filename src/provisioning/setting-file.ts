// A setting a setup script reads from a file on the host (the API key of
// LAL_AUTH_TOKEN_FILE, the text of FAE_SYSTEM_PROMPT_FILE) and hands to
// fae's caplet as the setting itself. The file is read here, in the `endo
// run` process, relative to where the user ran the command: the daemon's
// worker runs elsewhere and may not be able to read it.
import fs from 'node:fs';
import path from 'node:path';
import { q } from '@endo/errors';

export interface SettingFile {
  /** The file's absolute path, for errors. */
  readonly where: string;
  /** What it holds, as it is. */
  readonly text: string;
}

/**
 * Reads the file `file` names (`setting` is the variable that named it,
 * `holds` what it should hold, for errors). A missing or unreadable file
 * is a clear error that never quotes the file's content.
 */
export const readSettingFile = (setting: string, file: string, cwd: string, holds: string): SettingFile => {
  const where = path.resolve(cwd, file);
  try {
    return harden({ where, text: fs.readFileSync(where, 'utf8') });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const named = `${setting} names ${q(where)}`;
    if (code === 'ENOENT') {
      throw Error(`${named}, which does not exist; write ${holds} into that file, or set ${setting} to the file that holds it`);
    }
    throw Error(
      `${named}, which cannot be read (${typeof code === 'string' ? code : 'unknown error'}); it must be a file you can read that holds ${holds}`,
    );
  }
};
harden(readSettingFile);

// Replacing a file's contents all at once: a reader (or a crash) sees the
// old file or the new one, never half of each. The new contents go to a
// temporary file next to the old one (a rename is atomic only within one
// filesystem), which gets the old file's permission bits before it is
// renamed over it.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { explainFsError } from './fs-root.js';

/**
 * Atomically replaces the existing regular file at `realPath` (a real path
 * already checked against the root) with `contents`, keeping its mode.
 * Errors quote `userPath`. The temporary file is removed on failure.
 * `beforeReplace` runs last before the rename, once the new contents are
 * on disk; throwing there leaves the file untouched.
 */
export const replaceFileAtomically = async (
  realPath: string,
  contents: string,
  userPath: string,
  beforeReplace?: () => Promise<void>,
) => {
  const directory = path.dirname(realPath);
  const temporary = path.join(
    directory,
    `.${path.basename(realPath)}.${randomBytes(6).toString('hex')}.tmp`,
  );
  let created = false;
  try {
    const { mode } = await fs.promises.stat(realPath);
    // O_EXCL: never write through something that appeared under our name.
    const handle = await fs.promises.open(
      temporary,
      fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW,
      0o600,
    );
    created = true;
    try {
      await handle.writeFile(contents, 'utf8');
      // The umask applied at open; chmod sets the old bits exactly.
      await handle.chmod(mode & 0o7777);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await beforeReplace?.();
    await fs.promises.rename(temporary, realPath);
    created = false;
  } catch (error) {
    if (error instanceof FileChanged) throw error;
    throw explainFsError(error, userPath);
  } finally {
    if (created) await fs.promises.unlink(temporary).catch(() => {});
  }
};
harden(replaceFileAtomically);

/** Thrown by a `beforeReplace` check: passed on as it is. */
export class FileChanged extends Error {}
harden(FileChanged);

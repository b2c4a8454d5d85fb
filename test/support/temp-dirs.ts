// Temporary directories that a test file removes when it is done, whether
// its tests passed or failed (ava runs `after.always` hooks either way), so
// `npm test` leaves nothing in the OS temp directory.
//
//   const tempDir = tempDirs('fae-fs-');     // at the top of a test file
//   const root = tempDir();                  // a fresh, real (symlink-free) path
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';

export const tempDirs = (prefix: string): (() => string) => {
  const made: string[] = [];
  test.after.always('remove temporary directories', () => {
    for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
    made.push(dir);
    return dir;
  };
};

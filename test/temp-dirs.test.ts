// `npm test` must leave nothing in the OS temp directory (issue 14 §8).
// Every test file that makes a temporary directory either gets it from
// support/temp-dirs.ts (removed after the file's tests, passed or failed)
// or removes it in a t.teardown next to where it is made.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { tempDirs } from './support/temp-dirs.js';

const TEST_SOURCES = fileURLToPath(new URL('../../test/', import.meta.url));

const sourcesOf = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourcesOf(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });

test('every temporary directory a test makes is removed, also when the test fails', t => {
  const offenders: string[] = [];
  for (const file of sourcesOf(TEST_SOURCES)) {
    if (file.endsWith(path.join('support', 'temp-dirs.ts')) || file.endsWith('temp-dirs.test.ts')) continue;
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, index) => {
      if (!/mkdtemp/.test(line)) return;
      // The removal must be registered right where the directory is made.
      const nearby = lines.slice(index, index + 6).join('\n');
      if (!(/t\.teardown\(/.test(nearby) && /fs\.rmSync\(/.test(nearby))) {
        offenders.push(`${path.relative(TEST_SOURCES, file)}:${index + 1}`);
      }
    });
  }
  t.deepEqual(offenders, [], 'use tempDirs() from test/support/temp-dirs.ts, or t.teardown(() => fs.rmSync(dir, …))');
});

const made = tempDirs('fae-temp-dirs-check-');
let madeHere = '';
test.serial('tempDirs() makes a real, empty directory under the OS temp directory', t => {
  madeHere = made();
  t.true(madeHere.startsWith(fs.realpathSync(os.tmpdir())));
  t.deepEqual(fs.readdirSync(madeHere), []);
});
test.after.always('the directory is gone once the file is done', () => {
  // Registered after tempDirs' own hook, so it runs after the removal.
  if (madeHere !== '' && fs.existsSync(madeHere)) throw Error(`${madeHere} was left behind`);
});

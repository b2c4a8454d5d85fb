// The filesystem tool caplets against real temporary directories: what
// they do inside the root, and every way out of the root we know of, for
// reads, writes (to existing and new files), edits and listings.
import test from 'ava';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { E } from '@endo/far';
import { make as makeReadFile } from '../tools/read-file.js';
import { make as makeWriteFile } from '../tools/write-file.js';
import { make as makeEditFile } from '../tools/edit-file.js';
import { make as makeListDir } from '../tools/list-dir.js';
import { tempDirs } from './support/temp-dirs.js';
import { makeEscapeTree, rootEscapes } from './support/root-escapes.js';

const tempDir = tempDirs('fae-fs-');

/**
 * tmp/app          the root (FAE_CWD)
 *   inside.txt, sub/nested.txt, empty/
 *   link-in      -> sub                      (stays inside)
 *   link-out     -> ../outside               (a directory outside)
 *   link-secret  -> ../app-secrets/secret.txt (a file outside)
 *   dangling     -> ../app-secrets/planted.txt (missing, outside)
 * tmp/app-secrets/secret.txt   the sibling whose name starts with the root's
 * tmp/outside/x.txt
 */
const makeTree = () => {
  const tmp = tempDir();
  const root = makeEscapeTree(tmp);
  fs.mkdirSync(path.join(root, 'empty'));
  fs.writeFileSync(path.join(root, 'inside.txt'), 'inside\n');
  fs.symlinkSync('../app-secrets/planted.txt', path.join(root, 'dangling'));
  const options = harden({ env: { FAE_CWD: root } });
  return {
    tmp,
    root,
    readFile: makeReadFile(undefined, undefined, options),
    writeFile: makeWriteFile(undefined, undefined, options),
    editFile: makeEditFile(undefined, undefined, options),
    listDir: makeListDir(undefined, undefined, options),
  };
};

const OUTSIDE = /is outside the root|leads outside the root ".*" through a symlink/;

test('readFile reads inside the root, by relative, absolute and linked paths', async t => {
  const { root, readFile } = makeTree();
  t.is(await E(readFile).execute({ filePath: 'inside.txt' }), 'inside\n');
  t.is(await E(readFile).execute({ filePath: path.join(root, 'sub/nested.txt') }), 'nested\n');
  t.is(await E(readFile).execute({ filePath: 'link-in/nested.txt' }), 'nested\n');
  t.is(await E(readFile).execute({ filePath: 'sub/../inside.txt' }), 'inside\n');
});

test('readFile refuses every way out of the root', async t => {
  const { tmp, readFile } = makeTree();
  const escapes = rootEscapes(tmp);
  for (const filePath of escapes) {
    await t.throwsAsync(E(readFile).execute({ filePath }), { message: OUTSIDE }, filePath);
  }
  await t.throwsAsync(E(readFile).execute({ filePath: '../app-secrets/secret.txt' }), {
    message: `readFile: "../app-secrets/secret.txt" is outside the root "${path.join(tmp, 'app')}"; use a path inside it, such as a path relative to the root`,
  });
  await t.throwsAsync(E(readFile).execute({ filePath: 'link-secret' }), {
    message: /^readFile: "link-secret" leads outside the root ".*" through a symlink/,
  });
});

test('readFile reports a missing file, a directory and a binary file clearly', async t => {
  const { root, readFile } = makeTree();
  await t.throwsAsync(E(readFile).execute({ filePath: 'nope.txt' }), {
    message: 'readFile: "nope.txt" does not exist',
  });
  await t.throwsAsync(E(readFile).execute({ filePath: 'sub' }), {
    message: 'readFile: "sub" is a directory; use listDir to see what it holds',
  });
  fs.writeFileSync(path.join(root, 'blob.bin'), Buffer.from([1, 2, 0, 3]));
  await t.throwsAsync(E(readFile).execute({ filePath: 'blob.bin' }), {
    message: 'readFile: "blob.bin" looks like a binary file (4 bytes); readFile returns text only',
  });
  execFileSync('mkfifo', [path.join(root, 'pipe')]);
  await t.throwsAsync(E(readFile).execute({ filePath: 'pipe' }), {
    message: 'readFile: "pipe" is not a regular file (a device, pipe or socket)',
  });
  await t.throwsAsync(E(readFile).execute({}), {
    message: /^readFile: argument "filePath" is required/,
  });
});

test('readFile caps what it returns and says how long the file is', async t => {
  const { root, readFile } = makeTree();
  // Longer than the cap but read whole: the total is in characters.
  fs.writeFileSync(path.join(root, 'medium.txt'), 'é'.repeat(60_000));
  const medium = await E(readFile).execute({ filePath: 'medium.txt' });
  t.true(medium.startsWith('é'.repeat(50_000) + '\n\n'));
  t.true(
    medium.endsWith(
      '[readFile: showing the first 50000 characters of "medium.txt", which has 60000 characters in all]',
    ),
  );
  // Larger than what is read at all: the total is the file's size in bytes.
  const big = path.join(root, 'big.txt');
  fs.writeFileSync(big, 'abcdefghij'.repeat(100_000));
  const start = await E(readFile).execute({ filePath: 'big.txt' });
  t.is(start.indexOf('\n'), 50_000);
  t.regex(start, /which has 1000000 bytes in all\]$/);
});

test('writeFile creates files and parent directories inside the root, and overwrites', async t => {
  const { root, writeFile, readFile } = makeTree();
  t.is(
    await E(writeFile).execute({ filePath: 'a/b/c.txt', contents: 'deep' }),
    'Created a/b/c.txt (4 characters).',
  );
  t.is(fs.readFileSync(path.join(root, 'a/b/c.txt'), 'utf8'), 'deep');
  t.is(
    await E(writeFile).execute({ filePath: 'inside.txt', contents: 'new' }),
    'Overwrote inside.txt (3 characters).',
  );
  t.is(await E(readFile).execute({ filePath: 'inside.txt' }), 'new');
  t.is(
    await E(writeFile).execute({ filePath: 'link-in/made.txt', contents: 'via link' }),
    'Created sub/made.txt (8 characters).',
  );
  await t.throwsAsync(E(writeFile).execute({ filePath: 'sub', contents: 'x' }), {
    message: 'writeFile: "sub" is a directory; give a file path',
  });
  await t.throwsAsync(E(writeFile).execute({ filePath: '.', contents: 'x' }), {
    message: 'writeFile: "." is the root directory, not a file',
  });
  fs.symlinkSync('sub/later.txt', path.join(root, 'later'));
  await t.throwsAsync(E(writeFile).execute({ filePath: 'later', contents: 'x' }), {
    message:
      'writeFile: "later" goes through a symlink to "sub/later.txt", which does not exist; write to that path instead',
  });
  await t.throwsAsync(E(writeFile).execute({ filePath: 'inside.txt/child', contents: 'x' }), {
    message: 'writeFile: "inside.txt/child" cannot be created: "inside.txt" is a file, not a directory',
  });
});

test('writeFile refuses every way out of the root and creates nothing outside', async t => {
  const { tmp, root, writeFile } = makeTree();
  const escapes = [
    '../app-secrets/new.txt',
    '../app-secrets-new/new.txt',
    path.join(tmp, 'outside', 'new.txt'),
    'link-out/new.txt',
    'link-out/deeper/new.txt',
    'link-secret',
    'dangling',
    'sub/../../outside/new.txt',
  ];
  for (const filePath of escapes) {
    await t.throwsAsync(
      E(writeFile).execute({ filePath, contents: 'PWNED' }),
      { message: OUTSIDE },
      filePath,
    );
  }
  t.is(fs.readFileSync(path.join(tmp, 'app-secrets', 'secret.txt'), 'utf8'), 'SECRET\n');
  t.deepEqual(fs.readdirSync(path.join(tmp, 'app-secrets')), ['secret.txt']);
  t.deepEqual(fs.readdirSync(path.join(tmp, 'outside')), ['x.txt']);
  t.deepEqual(fs.readdirSync(tmp).sort(), ['app', 'app-secrets', 'outside']);
  t.false(fs.existsSync(path.join(root, 'link-out', 'deeper')));
});

test('editFile refuses files outside the root, through names and symlinks', async t => {
  const { tmp, editFile } = makeTree();
  for (const filePath of ['../app-secrets/secret.txt', 'link-secret', 'link-out/x.txt']) {
    await t.throwsAsync(
      E(editFile).execute({ filePath, oldString: 'SECRET', newString: 'PWNED' }),
      { message: OUTSIDE },
      filePath,
    );
  }
  t.is(fs.readFileSync(path.join(tmp, 'app-secrets', 'secret.txt'), 'utf8'), 'SECRET\n');
});

test('listDir lists sorted, marks directories (and links to them) with a slash', async t => {
  const { root, listDir } = makeTree();
  fs.writeFileSync(path.join(root, 'B.txt'), '');
  const expected = [
    'B.txt',
    'dangling',
    'empty/',
    'inside.txt',
    'link-in/',
    'link-out/',
    'link-secret',
    'sub/',
  ].join('\n');
  t.is(await E(listDir).execute({}), expected);
  t.is(await E(listDir).execute({ dirPath: '.' }), expected);
  t.is(await E(listDir).execute({ dirPath: 'sub' }), 'nested.txt');
  t.is(await E(listDir).execute({ dirPath: 'link-in' }), 'nested.txt');
  t.is(await E(listDir).execute({ dirPath: 'empty' }), '(empty is empty)');
  await t.throwsAsync(E(listDir).execute({ dirPath: 'inside.txt' }), {
    message: 'listDir: "inside.txt" is a file, not a directory; use readFile to read it',
  });
  await t.throwsAsync(E(listDir).execute({ dirPath: 'missing' }), {
    message: 'listDir: "missing" does not exist',
  });
});

test('listDir refuses every way out of the root', async t => {
  const { tmp, listDir } = makeTree();
  const escapes = ['..', '../app-secrets', 'link-out', path.join(tmp, 'outside'), '/'];
  for (const dirPath of escapes) {
    await t.throwsAsync(E(listDir).execute({ dirPath }), { message: OUTSIDE }, dirPath);
  }
});

test('the root is FAE_CWD; without it, the worker directory, and help says so', async t => {
  const { root } = makeTree();
  const withRoot = makeListDir(undefined, undefined, harden({ env: { FAE_CWD: root } }));
  t.regex(await E(withRoot).help(), /confined to .*app \(FAE_CWD\)/);
  const withoutRoot = makeReadFile(undefined, undefined, harden({ env: {} }));
  const help = await E(withoutRoot).help();
  t.true(help.includes('FAE_CWD was not set'), help);
  t.true(help.includes(fs.realpathSync(process.cwd())), help);
  t.throws(
    () => makeReadFile(undefined, undefined, harden({ env: { FAE_CWD: path.join(root, 'nope') } })),
    { message: /^The root directory ".*nope" cannot be used \(.* does not exist\); set FAE_CWD to an existing directory$/ },
  );
});

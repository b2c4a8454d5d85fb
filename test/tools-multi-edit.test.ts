// The `edit` tool caplet, made in the local daemon as setup-fs-tools makes
// it and called through E(), against real temporary directories: single
// and batch edits, the refusals (which leave the file as it was), line
// endings, byte-order marks, permissions, and every way out of the root
// that the other filesystem tools refuse.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { E } from '@endo/far';
import { makeLocalDaemon } from './support/daemon.js';
import { toolUrl } from './support/tool-caplets.js';
import { detectDialect, specialNames } from '../src/daemon/dialect.js';
import { FileChanged, replaceFileAtomically } from '../src/tool-kit/atomic-write.js';
import { makeEscapeTree, rootEscapes } from './support/root-escapes.js';

/**
 * tmp/app          the root (FAE_CWD), with the given files
 *   sub/nested.txt, link-in -> sub, link-out -> ../outside,
 *   link-secret -> ../app-secrets/secret.txt
 * tmp/app-secrets/secret.txt, tmp/outside/x.txt
 */
const setup = async (t: ExecutionContext, files: Record<string, string> = {}) => {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fae-multi-edit-')));
  const daemon = makeLocalDaemon();
  t.teardown(async () => {
    await daemon.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });
  const root = makeEscapeTree(tmp);
  for (const [name, content] of Object.entries(files)) {
    fs.writeFileSync(path.join(root, name), content);
  }
  // `any`: the host is a remote reference.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const host: any = await daemon.host;
  const { main } = specialNames(await detectDialect(host));
  const tool = await E(host).makeUnconfined(main, toolUrl('edit'), {
    resultName: 'edit',
    env: { FAE_CWD: root },
  });
  const edit = (args: Record<string, unknown>): Promise<string> => E(tool).execute(harden(args));
  const read = (name: string) => fs.readFileSync(path.join(root, name), 'utf8');
  /** Every entry in the root, so a stray temporary file would show. */
  const entries = () => fs.readdirSync(root).sort();
  return { tmp, root, tool, edit, read, entries };
};

test('edit is offered as "edit", takes a path and one pair or a list, and says what it is rooted at', async t => {
  const { tool, root } = await setup(t);
  const schema = await E(tool).schema();
  t.is(schema.function.name, 'edit');
  // Records cross the connection with their keys sorted.
  t.deepEqual(Object.keys(schema.function.parameters.properties).sort(), ['edits', 'newText', 'oldText', 'path']);
  t.deepEqual(schema.function.parameters.required, ['path']);
  t.true((await E(tool).help()).includes(`${root} (FAE_CWD)`));
});

test('one edit is applied and answered with a unified diff', async t => {
  const { edit, read, entries } = await setup(t, { 'a.js': 'const x = 1;\nconst y = 2;\n' });
  const before = entries();
  const result = await edit({ path: 'a.js', oldText: 'const y = 2;', newText: 'const y = 3;' });
  t.is(
    result,
    'Applied 1 edit to a.js.\n--- a/a.js\n+++ b/a.js\n@@ -1,2 +1,2 @@\n const x = 1;\n-const y = 2;\n+const y = 3;\n',
  );
  t.is(read('a.js'), 'const x = 1;\nconst y = 3;\n');
  t.deepEqual(entries(), before);
});

test('a batch of edits is applied together, each matched against the file as it was', async t => {
  const { edit, read } = await setup(t, { 'b.txt': 'alpha\nbeta\ngamma\ndelta\n' });
  const result = await edit({
    path: 'b.txt',
    edits: [
      { oldText: 'delta', newText: 'DELTA' },
      { oldText: 'alpha\n', newText: 'alpha\nbeta\n' },
      { oldText: 'gamma\n', newText: '' },
    ],
  });
  t.is(read('b.txt'), 'alpha\nbeta\nbeta\nDELTA\n');
  t.true(result.startsWith('Applied 3 edits to b.txt.\n--- a/b.txt\n+++ b/b.txt\n@@ -1,4 +1,4 @@\n'), result);
  t.true(result.includes('\n-gamma\n'), result);
  t.true(result.includes('\n-delta\n+DELTA\n'), result);
});

test('no match, several matches or overlapping edits: the error names the edit and nothing is written', async t => {
  const original = 'a = 1\nb = 1\nc = 2\n';
  const { edit, read, root, entries } = await setup(t, { 'c.txt': original });
  const mtime = fs.statSync(path.join(root, 'c.txt')).mtimeMs;
  const before = entries();
  await t.throwsAsync(edit({ path: 'c.txt', oldText: 'd = 3', newText: 'd = 4' }), {
    message:
      'edit: edit 1: oldText was not found in "c.txt"; read the file and copy the text exactly, including spaces and indentation. Nothing was written.',
  });
  await t.throwsAsync(edit({ path: 'c.txt', oldText: '= 1', newText: '= 5' }), {
    message:
      'edit: edit 1: oldText was found 2 times in "c.txt"; add neighbouring lines to it until it occurs exactly once. Nothing was written.',
  });
  await t.throwsAsync(
    edit({
      path: 'c.txt',
      edits: [
        { oldText: 'c = 2', newText: 'c = 3' },
        { oldText: 'a = 1\nb', newText: 'A' },
        { oldText: '1\nb = 1', newText: 'B' },
      ],
    }),
    { message: 'edit: edit 3 overlaps edit 2 (both change the same text); combine them into one edit. Nothing was written.' },
  );
  t.is(read('c.txt'), original);
  t.is(fs.statSync(path.join(root, 'c.txt')).mtimeMs, mtime);
  t.deepEqual(entries(), before);
});

test('a CRLF file is matched with LF text and keeps CRLF; a byte-order mark stays; an empty newText deletes', async t => {
  const { edit, read } = await setup(t, {
    'win.txt': 'one\r\ntwo\r\nthree\r\n',
    'bom.txt': '\uFEFFfirst\nsecond\n',
    'del.txt': 'keep\ndrop me\nkeep\n',
  });
  await edit({ path: 'win.txt', oldText: 'one\ntwo\n', newText: 'one\nuno\ntwo\n' });
  t.is(read('win.txt'), 'one\r\nuno\r\ntwo\r\nthree\r\n');
  await edit({ path: 'bom.txt', oldText: 'first', newText: 'FIRST' });
  t.is(read('bom.txt'), '\uFEFFFIRST\nsecond\n');
  const result = await edit({ path: 'del.txt', oldText: 'drop me\n', newText: '' });
  t.is(read('del.txt'), 'keep\nkeep\n');
  t.true(result.endsWith('@@ -1,3 +1,2 @@\n keep\n-drop me\n keep\n'), result);
});

test('the file keeps its permissions, and an edit through a link inside the root edits the target', async t => {
  const { edit, read, root } = await setup(t, { 'mode.sh': 'echo hi\n' });
  fs.chmodSync(path.join(root, 'mode.sh'), 0o750);
  await edit({ path: 'mode.sh', oldText: 'hi', newText: 'there' });
  t.is(fs.statSync(path.join(root, 'mode.sh')).mode & 0o777, 0o750);
  t.is(read('mode.sh'), 'echo there\n');
  t.is(await edit({ path: 'link-in/nested.txt', oldText: 'nested', newText: 'changed' }), 'Applied 1 edit to sub/nested.txt.\n--- a/sub/nested.txt\n+++ b/sub/nested.txt\n@@ -1,1 +1,1 @@\n-nested\n+changed\n');
  t.true(fs.lstatSync(path.join(root, 'link-in')).isSymbolicLink());
  t.is(read('sub/nested.txt'), 'changed\n');
});

test('malformed calls, directories, missing and binary files are refused before anything is written', async t => {
  const { edit, root } = await setup(t, { 'a.txt': 'hello\n' });
  fs.writeFileSync(path.join(root, 'blob.bin'), Buffer.from([0x68, 0x00, 0xff, 0x0a]));
  const cases: [Record<string, unknown>, string | RegExp][] = [
    [{ path: 'a.txt' }, /^edit: oldText is required/],
    [{ path: 'a.txt', oldText: 'hello' }, 'edit: newText is required: the text to put in place of oldText ("" deletes it)'],
    [{ path: 'a.txt', oldText: 'x', newText: 'y', edits: [] }, 'edit: give either oldText and newText, or edits, not both'],
    [{ path: 'a.txt', edits: 'hello' }, 'edit: argument "edits" must be an array, not "hello"'],
    [{ path: 'a.txt', edits: [{ old_string: 'hello', newText: 'x' }] }, 'edit: edit 1 has an unknown field "old_string"; each edit has exactly "oldText" and "newText"'],
    [{ filePath: 'a.txt', oldText: 'hello', newText: 'x' }, /^edit: unknown argument "filePath"; it accepts "path", "oldText", "newText", "edits"/],
    [{ path: 'sub', oldText: 'a', newText: 'b' }, 'edit: "sub" is a directory, not a file'],
    [{ path: 'missing.txt', oldText: 'a', newText: 'b' }, 'edit: "missing.txt" does not exist'],
    [{ path: 'blob.bin', oldText: 'h', newText: 'H' }, 'edit: "blob.bin" is not a UTF-8 text file; edit changes text files only'],
  ];
  for (const [args, message] of cases) {
    await t.throwsAsync(edit(args), { message }, JSON.stringify(args));
  }
  t.is(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'hello\n');
});

test('edit refuses every way out of the root that the other filesystem tools refuse', async t => {
  const { tmp, edit } = await setup(t);
  const escapes = rootEscapes(tmp);
  for (const filePath of escapes) {
    await t.throwsAsync(
      edit({ path: filePath, oldText: 'SECRET', newText: 'PWNED' }),
      { message: /is outside the root|leads outside the root ".*" through a symlink/ },
      filePath,
    );
  }
  t.is(fs.readFileSync(path.join(tmp, 'app-secrets', 'secret.txt'), 'utf8'), 'SECRET\n');
  t.is(fs.readFileSync(path.join(tmp, 'outside', 'x.txt'), 'utf8'), 'outside\n');
  t.deepEqual(fs.readdirSync(path.join(tmp, 'app-secrets')), ['secret.txt']);
  t.deepEqual(fs.readdirSync(path.join(tmp, 'outside')), ['x.txt']);
});

test('an atomic replacement that fails leaves no temporary file behind', async t => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fae-atomic-')));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, 'target'));
  fs.writeFileSync(path.join(dir, 'target', 'inside.txt'), 'kept\n');
  // Renaming a file over a non-empty directory fails after the temporary file is written.
  await t.throwsAsync(replaceFileAtomically(path.join(dir, 'target'), 'new', 'target'), {
    message: /^"target" /,
  });
  t.deepEqual(fs.readdirSync(dir), ['target']);
  t.deepEqual(fs.readdirSync(path.join(dir, 'target')), ['inside.txt']);
  fs.writeFileSync(path.join(dir, 'file.txt'), 'old\n', { mode: 0o604 });
  fs.chmodSync(path.join(dir, 'file.txt'), 0o604);
  await replaceFileAtomically(path.join(dir, 'file.txt'), 'new\n', 'file.txt');
  t.is(fs.readFileSync(path.join(dir, 'file.txt'), 'utf8'), 'new\n');
  t.is(fs.statSync(path.join(dir, 'file.txt')).mode & 0o777, 0o604);
  t.deepEqual(fs.readdirSync(dir).sort(), ['file.txt', 'target']);
});

test('a check that fails just before the replacement leaves the file as it was, and no temporary file', async t => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fae-atomic-')));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'file.txt');
  fs.writeFileSync(file, 'theirs\n');
  let checked = false;
  await t.throwsAsync(
    replaceFileAtomically(file, 'mine\n', 'file.txt', async () => {
      checked = true;
      throw new FileChanged('"file.txt" changed while it was being edited');
    }),
    { instanceOf: FileChanged, message: '"file.txt" changed while it was being edited' },
  );
  t.true(checked);
  t.is(fs.readFileSync(file, 'utf8'), 'theirs\n');
  t.deepEqual(fs.readdirSync(dir), ['file.txt']);
});

// editFile: literal, unique replacements that keep line endings and BOMs.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { E } from '@endo/far';
import { make as makeEditFile } from '../tools/edit-file.js';
import { tempDirs } from './support/temp-dirs.js';

const tempDir = tempDirs('fae-edit-');

const setup = (files: Record<string, string>) => {
  const root = tempDir();
  for (const [name, content] of Object.entries(files)) {
    fs.writeFileSync(path.join(root, name), content);
  }
  const editFile = makeEditFile(undefined, undefined, harden({ env: { FAE_CWD: root } }));
  const read = (name: string) => fs.readFileSync(path.join(root, name), 'utf8');
  return { editFile, read };
};

test('editFile replaces the one occurrence and reports it', async t => {
  const { editFile, read } = setup({ 'a.js': 'const x = 1;\nconst y = 2;\n' });
  const result = await E(editFile).execute({
    filePath: 'a.js',
    oldString: 'const y = 2;',
    newString: 'const y = 3;',
  });
  t.is(result, 'Edited a.js: replaced 1 occurrence (12 characters with 12).');
  t.is(read('a.js'), 'const x = 1;\nconst y = 3;\n');
});

test('editFile takes the new text literally: $&, $1 and $$ stay as written', async t => {
  const { editFile, read } = setup({ 'price.txt': 'price: TBD\n' });
  await E(editFile).execute({
    filePath: 'price.txt',
    oldString: 'TBD',
    newString: "$& costs $$5 ($1) and $' $`",
  });
  t.is(read('price.txt'), "price: $& costs $$5 ($1) and $' $`\n");
});

test('editFile refuses a non-unique match and says how many there are', async t => {
  const { editFile, read } = setup({ 'dup.txt': 'a = 1\nb = 1\nc = 1\n' });
  await t.throwsAsync(
    E(editFile).execute({ filePath: 'dup.txt', oldString: '= 1', newString: '= 2' }),
    {
      message:
        'editFile: "oldString" occurs 3 times in "dup.txt"; include more surrounding text so that it matches exactly once',
    },
  );
  t.is(read('dup.txt'), 'a = 1\nb = 1\nc = 1\n');
});

test('editFile refuses text that is absent, empty, or unchanged', async t => {
  const { editFile } = setup({ 'a.txt': 'hello\n' });
  await t.throwsAsync(
    E(editFile).execute({ filePath: 'a.txt', oldString: 'bye', newString: 'x' }),
    {
      message:
        'editFile: "oldString" was not found in "a.txt"; read the file and copy the text exactly, including whitespace',
    },
  );
  await t.throwsAsync(E(editFile).execute({ filePath: 'a.txt', oldString: '', newString: 'x' }), {
    message: 'editFile: "oldString" is empty; give the exact text to replace',
  });
  await t.throwsAsync(
    E(editFile).execute({ filePath: 'a.txt', oldString: 'hello', newString: 'hello' }),
    { message: 'editFile: "oldString" and "newString" are the same; nothing would change' },
  );
  await t.throwsAsync(
    E(editFile).execute({ filePath: 'missing.txt', oldString: 'a', newString: 'b' }),
    { message: 'editFile: "missing.txt" does not exist' },
  );
  await t.throwsAsync(E(editFile).execute({ filePath: 'a.txt', oldString: 'hello' }), {
    message: /^editFile: argument "newString" is required/,
  });
});

test('editFile keeps CRLF line endings when the model writes \\n', async t => {
  const { editFile, read } = setup({ 'win.txt': 'one\r\ntwo\r\nthree\r\n' });
  await E(editFile).execute({
    filePath: 'win.txt',
    oldString: 'one\ntwo',
    newString: 'one\nuno\ntwo',
  });
  t.is(read('win.txt'), 'one\r\nuno\r\ntwo\r\nthree\r\n');
});

test('editFile keeps a byte-order mark, even when editing the first line', async t => {
  const { editFile, read } = setup({ 'bom.txt': '\uFEFFfirst\nsecond\n' });
  await E(editFile).execute({ filePath: 'bom.txt', oldString: 'first', newString: 'FIRST' });
  t.is(read('bom.txt'), '\uFEFFFIRST\nsecond\n');
});

test('editFile leaves LF files and mixed files exactly as written', async t => {
  const { editFile, read } = setup({ 'lf.txt': 'a\nb\n', 'mixed.txt': 'a\r\nb\nc\n' });
  await E(editFile).execute({ filePath: 'lf.txt', oldString: 'a\nb', newString: 'a\nx\nb' });
  t.is(read('lf.txt'), 'a\nx\nb\n');
  await E(editFile).execute({ filePath: 'mixed.txt', oldString: 'b\nc', newString: 'b\nB\nc' });
  t.is(read('mixed.txt'), 'a\r\nb\nB\nc\n');
});

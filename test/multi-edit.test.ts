// The pure logic of the edit tool: applying a batch of literal edits all
// or none (src/tool-kit/multi-edit.ts), and the unified diff it answers
// with (src/tool-kit/unified-diff.ts), checked against `patch` itself.
import test from 'ava';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { applyEdits, countOccurrences, editsFromArguments } from '../src/tool-kit/multi-edit.js';
import { unifiedDiff } from '../src/tool-kit/unified-diff.js';

const numbered = (count: number) =>
  Array.from({ length: count }, (_, i) => `line ${i + 1}\n`).join('');

test('one edit: the new text and a diff with three lines of context', t => {
  const outcome = applyEdits(numbered(10), [{ oldText: 'line 5\n', newText: 'five\n' }], 'n.txt');
  t.is(outcome.content, numbered(10).replace('line 5\n', 'five\n'));
  t.is(outcome.applied, 1);
  t.is(
    outcome.diff,
    [
      '--- a/n.txt',
      '+++ b/n.txt',
      '@@ -2,7 +2,7 @@',
      ' line 2',
      ' line 3',
      ' line 4',
      '-line 5',
      '+five',
      ' line 6',
      ' line 7',
      ' line 8',
      '',
    ].join('\n'),
  );
});

test('a batch: edits far apart make two hunks, edits close together one; only changed lines are marked', t => {
  const outcome = applyEdits(
    numbered(30),
    [
      { oldText: 'line 25', newText: 'twenty-five' },
      { oldText: 'line 2\nline 3\nline 4', newText: 'line 2\nthree\nline 4' },
      { oldText: 'line 9\n', newText: '' },
    ],
    'n.txt',
  );
  t.is(outcome.applied, 3);
  t.is(
    outcome.diff,
    [
      '--- a/n.txt',
      '+++ b/n.txt',
      '@@ -1,12 +1,11 @@',
      ' line 1',
      ' line 2',
      '-line 3',
      '+three',
      ' line 4',
      ' line 5',
      ' line 6',
      ' line 7',
      ' line 8',
      '-line 9',
      ' line 10',
      ' line 11',
      ' line 12',
      '@@ -22,7 +21,7 @@',
      ' line 22',
      ' line 23',
      ' line 24',
      '-line 25',
      '+twenty-five',
      ' line 26',
      ' line 27',
      ' line 28',
      '',
    ].join('\n'),
  );
});

test('not found, found several times (overlaps counted), empty and unchanged edits are refused by number', t => {
  t.is(countOccurrences('aaa', 'aa'), 2);
  t.throws(() => applyEdits('aaa\n', [{ oldText: 'aa', newText: 'b' }], 'a.txt'), {
    message:
      'edit 1: oldText was found 2 times in "a.txt"; add neighbouring lines to it until it occurs exactly once. Nothing was written.',
  });
  t.throws(() => applyEdits('abc\n', [{ oldText: 'abc', newText: 'x' }, { oldText: 'zzz', newText: 'y' }], 'a.txt'), {
    message:
      'edit 2: oldText was not found in "a.txt"; read the file and copy the text exactly, including spaces and indentation. Nothing was written.',
  });
  t.throws(() => applyEdits('abc\n', [{ oldText: '', newText: 'x' }], 'a.txt'), {
    message: /^edit 1: oldText is empty; give the exact text to replace/,
  });
  t.throws(() => applyEdits('abc\n', [{ oldText: 'abc', newText: 'abc' }], 'a.txt'), {
    message: 'edit 1: oldText and newText are the same, so it would change nothing. Nothing was written.',
  });
});

test('overlapping edits are refused, naming both; every problem is listed at once', t => {
  t.throws(
    () => applyEdits('one two three\n', [{ oldText: 'one two', newText: '1 2' }, { oldText: 'x', newText: 'y' }, { oldText: 'two three', newText: '2 3' }], 'o.txt'),
    {
      message: [
        '2 of 3 edits cannot be applied, so nothing was written:',
        '- edit 2: oldText was not found in "o.txt"; read the file and copy the text exactly, including spaces and indentation',
        '- edit 3 overlaps edit 1 (both change the same text); combine them into one edit',
      ].join('\n'),
    },
  );
  t.throws(() => applyEdits('same\nsame-ish\n', [{ oldText: 'same\n', newText: 'a' }, { oldText: 'same\n', newText: 'b' }], 'o.txt'), {
    message: 'edit 2 overlaps edit 1 (both change the same text); combine them into one edit. Nothing was written.',
  });
  // Touching is not overlapping.
  t.is(applyEdits('abcd', [{ oldText: 'cd', newText: 'CD' }, { oldText: 'ab', newText: 'AB' }], 'o.txt').content, 'ABCD');
});

test('CRLF files match LF text, keep CRLF, and new lines get CRLF; a mixed file keeps each line\'s ending', t => {
  const crlf = applyEdits('one\r\ntwo\r\nthree\r\n', [{ oldText: 'one\ntwo\n', newText: 'one\nuno\ntwo\n' }], 'w.txt');
  t.is(crlf.content, 'one\r\nuno\r\ntwo\r\nthree\r\n');
  t.is(crlf.diff, '--- a/w.txt\n+++ b/w.txt\n@@ -1,3 +1,4 @@\n one\n+uno\n two\n three\n');
  const crlfInput = applyEdits('a\r\nb\r\n', [{ oldText: 'a\r\nb', newText: 'A\r\nB' }], 'w.txt');
  t.is(crlfInput.content, 'A\r\nB\r\n');
  const mixed = applyEdits('a\r\nb\nc\nd\n', [{ oldText: 'c\n', newText: 'c\nC\n' }], 'm.txt');
  t.is(mixed.content, 'a\r\nb\nc\nC\nd\n');
});

test('a byte-order mark is kept, even when the first line changes; deleting works with an empty newText', t => {
  const outcome = applyEdits('\uFEFFfirst\nsecond\n', [{ oldText: 'first', newText: 'FIRST' }], 'b.txt');
  t.is(outcome.content, '\uFEFFFIRST\nsecond\n');
  t.is(outcome.diff, '--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n-first\n+FIRST\n second\n');
  const deleted = applyEdits('keep\ndrop\nkeep too\n', [{ oldText: 'drop\n', newText: '' }], 'd.txt');
  t.is(deleted.content, 'keep\nkeep too\n');
  t.is(deleted.diff, '--- a/d.txt\n+++ b/d.txt\n@@ -1,3 +1,2 @@\n keep\n-drop\n keep too\n');
  const all = applyEdits('only\n', [{ oldText: 'only\n', newText: '' }], 'd.txt');
  t.is(all.content, '');
  t.is(all.diff, '--- a/d.txt\n+++ b/d.txt\n@@ -1,1 +0,0 @@\n-only\n');
});

test('a last line without a newline is marked as such; joining lines shows both', t => {
  const outcome = applyEdits('a\nb', [{ oldText: 'b', newText: 'b\nc\n' }], 'e.txt');
  t.is(outcome.content, 'a\nb\nc\n');
  t.is(
    outcome.diff,
    '--- a/e.txt\n+++ b/e.txt\n@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+c\n',
  );
  const joined = applyEdits('a\nb\nc\n', [{ oldText: 'a\n', newText: 'a' }], 'j.txt');
  t.is(joined.content, 'ab\nc\n');
  t.is(joined.diff, '--- a/j.txt\n+++ b/j.txt\n@@ -1,3 +1,2 @@\n-a\n-b\n+ab\n c\n');
});

test('the arguments: one pair, or a list of pairs, with each malformed part named', t => {
  t.deepEqual(editsFromArguments({ oldText: 'a', newText: '' }), [{ oldText: 'a', newText: '' }]);
  t.deepEqual(editsFromArguments({ edits: [{ oldText: 'a', newText: 'b' }] }), [{ oldText: 'a', newText: 'b' }]);
  t.throws(() => editsFromArguments({}), { message: /^oldText is required/ });
  t.throws(() => editsFromArguments({ oldText: 'a' }), {
    message: 'newText is required: the text to put in place of oldText ("" deletes it)',
  });
  t.throws(() => editsFromArguments({ oldText: 'a', newText: 'b', edits: [] }), {
    message: 'give either oldText and newText, or edits, not both',
  });
  t.throws(() => editsFromArguments({ edits: [] }), { message: /^edits is empty/ });
  t.throws(() => editsFromArguments({ edits: [{ oldText: 'a', newText: 'b' }, 'c'] }), {
    message: 'edit 2 must be an object such as {"oldText": "…", "newText": "…"}, not "c"',
  });
  t.throws(() => editsFromArguments({ edits: [{ old_string: 'a', newText: 'b' }] }), {
    message: 'edit 1 has an unknown field "old_string"; each edit has exactly "oldText" and "newText"',
  });
  t.throws(() => editsFromArguments({ edits: [{ oldText: 'a' }] }), {
    message: /^edit 1: newText must be a string/,
  });
});

/**
 * Applies a unified diff to `before`, insisting that every hunk's line
 * numbers and counts are exact (patch itself forgives wrong numbers).
 */
const applyStrictly = (before: string, diff: string): string => {
  const oldLines = before.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const lines = diff.split('\n').slice(2, -1);
  const out: string[] = [];
  let cursor = 0;
  let i = 0;
  while (i < lines.length) {
    const header = /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@$/.exec(lines[i]);
    if (header === null) throw Error(`not a hunk header: ${lines[i]}`);
    const [oldStart, oldCount, newStart, newCount] = header.slice(1).map(Number);
    const from = oldCount === 0 ? oldStart : oldStart - 1;
    out.push(...oldLines.slice(cursor, from));
    cursor = from;
    if (out.length !== (newCount === 0 ? newStart : newStart - 1)) {
      throw Error(`hunk ${lines[i]} starts at new line ${out.length + 1}`);
    }
    let seenOld = 0;
    let seenNew = 0;
    for (i += 1; i < lines.length && !lines[i].startsWith('@@'); ) {
      const noEol = lines[i + 1] === '\\ No newline at end of file';
      const line = `${lines[i].slice(1)}${noEol ? '' : '\n'}`;
      const mark = lines[i][0];
      if (mark === ' ' || mark === '-') {
        if (oldLines[cursor] !== line) throw Error(`hunk line ${lines[i]} is not old line ${cursor + 1}`);
        cursor += 1;
        seenOld += 1;
      }
      if (mark === ' ' || mark === '+') {
        out.push(line);
        seenNew += 1;
      }
      i += noEol ? 2 : 1;
    }
    if (seenOld !== oldCount || seenNew !== newCount) throw Error(`wrong counts in ${header[0]}`);
  }
  return [...out, ...oldLines.slice(cursor)].join('');
};

/** A deterministic pseudo-random sequence (so a failure can be replayed). */
const makeRandom = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};

test('the diffs apply, with patch and with exact line numbers: random edit batches over random files', t => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fae-diff-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const random = makeRandom(7);
  const pick = (n: number) => Math.floor(random() * n);
  let patched = 0;
  for (let round = 0; round < 60; round += 1) {
    const lines = Array.from({ length: 1 + pick(40) }, (_, i) => `row ${i} ${'x'.repeat(pick(4))}`);
    const before = `${lines.join('\n')}${random() < 0.8 ? '\n' : ''}`;
    // Disjoint unique slices: whole and partial lines, line breaks included.
    const edits = [];
    let at = 0;
    while (at < before.length && edits.length < 4) {
      const start = at + pick(Math.min(60, before.length - at));
      const end = Math.min(before.length, start + 1 + pick(30));
      const oldText = before.slice(start, end);
      const choices = ['', 'new\n', `${oldText}!`, 'a\nb', oldText.toUpperCase()];
      const newText = choices[pick(choices.length)];
      if (countOccurrences(before, oldText) === 1 && newText !== oldText) {
        edits.push({ oldText, newText });
      }
      at = end + 1;
    }
    if (edits.length === 0) continue;
    const { content, diff } = applyEdits(before, edits, 'f.txt');
    const file = path.join(dir, 'f.txt');
    fs.writeFileSync(file, before);
    execFileSync('patch', ['--quiet', '--force', file], { input: diff });
    t.is(fs.readFileSync(file, 'utf8'), content, `round ${round}:\n${diff}`);
    t.is(applyStrictly(before, diff), content, `round ${round}:\n${diff}`);
    patched += 1;
  }
  t.true(patched >= 50, `only ${patched} rounds had edits`);
});

test('unifiedDiff is empty when nothing changed', t => {
  t.is(unifiedDiff('a\n', 'a\n', [], { path: 'x' }), '');
});

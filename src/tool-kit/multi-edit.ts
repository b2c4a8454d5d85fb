// The text transformation behind the `edit` tool, kept pure so it can be
// tested without a filesystem: a batch of literal replacements that applies
// whole or not at all.
//
// Models copy text from what a tool showed them, with "\n" line breaks,
// whatever the file uses; so matching happens in an LF view of the file,
// and the result is written back with the file's own line breaks (text the
// edits leave alone keeps exactly the bytes it had; new text takes the
// file's dominant break) and its byte-order mark.
import { q } from '@endo/errors';
import { unifiedDiff, type TextChange } from './unified-diff.js';

const BOM = '\uFEFF';

export interface TextEdit {
  readonly oldText: string;
  readonly newText: string;
}

export interface EditOutcome {
  /** The whole new file content, line breaks and byte-order mark kept. */
  readonly content: string;
  /** How many edits were applied (all of them). */
  readonly applied: number;
  /** A unified diff of the change, with LF line breaks; '' if nothing changed. */
  readonly diff: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const readEdit = (value: unknown, number: number): TextEdit => {
  if (!isRecord(value)) {
    throw Error(`edit ${number} must be an object such as {"oldText": "…", "newText": "…"}, not ${q(value)}`);
  }
  const unknown = Object.keys(value).filter(key => key !== 'oldText' && key !== 'newText');
  if (unknown.length > 0) {
    throw Error(`edit ${number} has an unknown field ${q(unknown[0])}; each edit has exactly "oldText" and "newText"`);
  }
  const { oldText, newText } = value;
  if (typeof oldText !== 'string') {
    throw Error(`edit ${number}: oldText must be a string (the exact text to replace), not ${q(oldText)}`);
  }
  if (typeof newText !== 'string') {
    throw Error(`edit ${number}: newText must be a string (the text to put in its place; "" deletes), not ${q(newText)}`);
  }
  return harden({ oldText, newText });
};

/**
 * The edits a call asks for: one `oldText`/`newText` pair, or `edits`, a
 * list of such pairs. Says plainly what is missing or malformed.
 */
export const editsFromArguments = (args: {
  readonly oldText?: string;
  readonly newText?: string;
  readonly edits?: readonly unknown[];
}): readonly TextEdit[] => {
  const { oldText, newText, edits } = args;
  if (edits !== undefined) {
    if (oldText !== undefined || newText !== undefined) {
      throw Error('give either oldText and newText, or edits, not both');
    }
    if (edits.length === 0) {
      throw Error('edits is empty; give at least one {"oldText": "…", "newText": "…"}');
    }
    return harden(edits.map((edit, i) => readEdit(edit, i + 1)));
  }
  if (oldText === undefined) {
    throw Error('oldText is required (the exact text to replace), or else edits: a list of {"oldText", "newText"} pairs');
  }
  if (newText === undefined) {
    throw Error('newText is required: the text to put in place of oldText ("" deletes it)');
  }
  return harden([{ oldText, newText }]);
};
harden(editsFromArguments);

/** Every start of `needle` in `haystack`, overlapping ones included ("aa" is twice in "aaa"). */
export const countOccurrences = (haystack: string, needle: string): number => {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
    count += 1;
  }
  return count;
};
harden(countOccurrences);

const toLf = (text: string) => text.replace(/\r\n/g, '\n');

/** Number of entries of a sorted list below `value`. */
const countBelow = (sorted: readonly number[], value: number) => {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle] < value) low = middle + 1;
    else high = middle;
  }
  return low;
};

interface Target {
  readonly number: number;
  readonly start: number;
  readonly end: number;
  readonly replacement: string;
}

const editNumber = (problem: string) => Number(/^edit (\d+)/.exec(problem)?.[1]);
const byEditNumber = (a: string, b: string) => editNumber(a) - editNumber(b);

const fail = (problems: readonly string[], total: number): never => {
  if (problems.length === 1) {
    throw Error(`${problems[0]}. Nothing was written.`);
  }
  const failing = new Set(problems.map(editNumber)).size;
  throw Error(
    `${failing} of ${total} edits cannot be applied, so nothing was written:\n${problems.map(problem => `- ${problem}`).join('\n')}`,
  );
};

/**
 * Applies every edit to `content`, or throws without applying any. Each
 * `oldText` must be non-empty, differ from its `newText` and occur exactly
 * once (counting overlapping occurrences); the edits must not overlap.
 * Errors name each failing edit by its 1-based number.
 */
export const applyEdits = (
  content: string,
  edits: readonly TextEdit[],
  displayPath: string,
): EditOutcome => {
  const bom = content.startsWith(BOM) ? BOM : '';
  const body = content.slice(bom.length);
  // The LF view, and where in it each "\r\n" of the file was.
  const view = toLf(body);
  const crlfAt: number[] = [];
  let seen = 0;
  for (const match of body.matchAll(/\r\n/g)) {
    crlfAt.push((match.index ?? 0) - seen);
    seen += 1;
  }
  const lfCount = countOccurrences(view, '\n') - crlfAt.length;
  const eol = crlfAt.length > lfCount ? '\r\n' : '\n';
  const toBody = (viewOffset: number) => viewOffset + countBelow(crlfAt, viewOffset);

  const problems: string[] = [];
  const targets: Target[] = [];
  edits.forEach(({ oldText, newText }, i) => {
    const number = i + 1;
    const needle = toLf(oldText);
    const replacement = toLf(newText);
    if (needle === '') {
      problems.push(`edit ${number}: oldText is empty; give the exact text to replace, with a neighbouring line if you mean to insert`);
      return;
    }
    if (needle === replacement) {
      problems.push(`edit ${number}: oldText and newText are the same, so it would change nothing`);
      return;
    }
    const count = countOccurrences(view, needle);
    if (count === 0) {
      problems.push(`edit ${number}: oldText was not found in ${q(displayPath)}; read the file and copy the text exactly, including spaces and indentation`);
      return;
    }
    if (count > 1) {
      problems.push(`edit ${number}: oldText was found ${count} times in ${q(displayPath)}; add neighbouring lines to it until it occurs exactly once`);
      return;
    }
    const start = view.indexOf(needle);
    targets.push({ number, start, end: start + needle.length, replacement });
  });

  const sorted = [...targets].sort((a, b) => a.start - b.start || a.number - b.number);
  let reach: Target | undefined;
  for (const target of sorted) {
    if (reach !== undefined && target.start < reach.end) {
      const [first, second] = [reach.number, target.number].sort((a, b) => a - b);
      problems.push(`edit ${second} overlaps edit ${first} (both change the same text); combine them into one edit`);
    }
    if (reach === undefined || target.end > reach.end) reach = target;
  }
  // Every problem at once, in edit order, so one corrected call can succeed.
  if (problems.length > 0) fail(problems.sort(byEditNumber), edits.length);

  let after = '';
  let written = '';
  let at = 0;
  const changes: TextChange[] = [];
  for (const { start, end, replacement } of sorted) {
    after += view.slice(at, start);
    written += body.slice(toBody(at), toBody(start));
    const newStart = after.length;
    after += replacement;
    written += eol === '\n' ? replacement : replacement.replace(/\n/g, eol);
    changes.push({ oldStart: start, oldEnd: end, newStart, newEnd: after.length });
    at = end;
  }
  after += view.slice(at);
  written += body.slice(toBody(at));
  return harden({
    content: `${bom}${written}`,
    applied: edits.length,
    diff: unifiedDiff(view, after, changes, { path: displayPath }),
  });
};
harden(applyEdits);

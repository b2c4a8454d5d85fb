// A unified diff (as `diff -u` and `git diff` write it) of a text and the
// same text after a few known replacements. The edit tool knows exactly
// which character ranges it changed, so instead of aligning the two whole
// texts (quadratic in the worst case, and a 10 MB file is allowed) this
// widens each replaced range to whole lines and shows those, trimmed of the
// lines they leave as they were, with `context` lines around them.

/** One replacement: [oldStart, oldEnd) of the old text became [newStart, newEnd) of the new. */
export interface TextChange {
  readonly oldStart: number;
  readonly oldEnd: number;
  readonly newStart: number;
  readonly newEnd: number;
}

export interface DiffOptions {
  /** The name shown after `--- a/` and `+++ b/`. */
  readonly path: string;
  /** Unchanged lines shown around each change (default 3). */
  readonly context?: number;
}

/** The lines of a text, each with its "\n" (the last may have none). */
const splitLines = (text: string): string[] => text.match(/[^\n]*\n|[^\n]+$/g) ?? [];

/** Offsets at which each line of `text` starts. */
const lineStarts = (text: string): number[] => {
  const starts = text === '' ? [] : [0];
  for (let at = text.indexOf('\n'); at !== -1 && at + 1 < text.length; at = text.indexOf('\n', at + 1)) {
    starts.push(at + 1);
  }
  return starts;
};

/**
 * The index of the line holding `offset`; at the very end of a text that
 * ends with "\n" (or is empty) that is one past the last line.
 */
const lineAt = (text: string, starts: readonly number[], offset: number): number => {
  if (offset >= text.length) {
    return text === '' || text.endsWith('\n') ? starts.length : starts.length - 1;
  }
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (starts[middle] <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
};

/** A run of whole old lines [from, to) that the changes touch. */
interface Window {
  from: number;
  to: number;
  /** new offset − old offset, before the window's first change and after its last. */
  readonly shiftBefore: number;
  shiftAfter: number;
}

/** A window reduced to the lines that really differ. */
interface Block {
  readonly oldLine: number;
  readonly newLine: number;
  readonly removed: readonly string[];
  readonly added: readonly string[];
}

const NO_EOL = '\\ No newline at end of file';

const render = (marker: string, line: string) =>
  line.endsWith('\n') ? [`${marker}${line.slice(0, -1)}`] : [`${marker}${line}`, NO_EOL];

/** The two texts, split, as the steps below read them. */
interface Texts {
  readonly before: string;
  readonly after: string;
  readonly oldStarts: readonly number[];
  readonly newStarts: readonly number[];
  readonly oldLines: readonly string[];
  /** Where old line `line` starts; one past the last line, the end of the text. */
  readonly startOf: (line: number) => number;
}

/** 1. Each change as whole old lines; changes sharing a line share a window. */
const windowsOf = ({ before, oldStarts, oldLines }: Texts, changes: readonly TextChange[]) => {
  const windows: Window[] = [];
  for (const change of changes) {
    const from = lineAt(before, oldStarts, change.oldStart);
    const last = change.oldEnd > change.oldStart ? lineAt(before, oldStarts, change.oldEnd - 1) : from;
    const to = Math.min(last + 1, oldLines.length);
    const shift = change.newEnd - change.oldEnd;
    const previous = windows.at(-1);
    if (previous !== undefined && from < previous.to) {
      previous.to = Math.max(previous.to, to);
      previous.shiftAfter = shift;
    } else {
      windows.push({ from, to, shiftBefore: change.newStart - change.oldStart, shiftAfter: shift });
    }
  }
  return windows;
};

/**
 * 2. A window whose new text does not end a line (a line break was
 * replaced) runs on into the next old line, and perhaps the next window.
 */
const joinBrokenLines = ({ after, oldLines, startOf }: Texts, windows: Window[]) => {
  for (let i = 0; i < windows.length; i += 1) {
    const window = windows[i];
    for (;;) {
      const newFrom = startOf(window.from) + window.shiftBefore;
      const newTo = startOf(window.to) + window.shiftAfter;
      const joined = newTo > newFrom && newTo < after.length && after[newTo - 1] !== '\n';
      if (!joined || window.to >= oldLines.length) break;
      window.to += 1;
      const next = windows[i + 1];
      if (next !== undefined && next.from < window.to) {
        window.to = Math.max(window.to, next.to);
        window.shiftAfter = next.shiftAfter;
        windows.splice(i + 1, 1);
      }
    }
  }
};

/**
 * 3. Old and new lines of each window, without the lines they share at
 * either end (an edit often repeats the lines around what it changes).
 */
const blocksOf = ({ after, newStarts, oldLines, startOf }: Texts, windows: readonly Window[]) => {
  const blocks: Block[] = [];
  for (const window of windows) {
    const oldFrom = startOf(window.from);
    const newFrom = oldFrom + window.shiftBefore;
    const newTo = startOf(window.to) + window.shiftAfter;
    const removed = oldLines.slice(window.from, window.to);
    const added = splitLines(after.slice(newFrom, newTo));
    let head = 0;
    while (head < removed.length && head < added.length && removed[head] === added[head]) head += 1;
    let tail = 0;
    while (
      tail < removed.length - head &&
      tail < added.length - head &&
      removed[removed.length - 1 - tail] === added[added.length - 1 - tail]
    ) {
      tail += 1;
    }
    if (removed.length - head - tail === 0 && added.length - head - tail === 0) continue;
    blocks.push({
      oldLine: window.from + head,
      newLine: lineAt(after, newStarts, newFrom) + head,
      removed: removed.slice(head, removed.length - tail),
      added: added.slice(head, added.length - tail),
    });
  }
  return blocks;
};

/** 4. Blocks close enough to share their context make one hunk. */
const hunksOf = (blocks: readonly Block[], context: number) => {
  const hunks: Block[][] = [];
  for (const block of blocks) {
    const hunk = hunks.at(-1);
    const previous = hunk?.at(-1);
    if (hunk && previous && block.oldLine - (previous.oldLine + previous.removed.length) <= 2 * context) {
      hunk.push(block);
    } else {
      hunks.push([block]);
    }
  }
  return hunks;
};

/** 5. One hunk, its header and its lines, with `context` lines around. */
const renderHunk = (oldLines: readonly string[], hunk: readonly Block[], context: number) => {
  const first = hunk[0];
  const last = hunk[hunk.length - 1];
  const start = Math.max(0, first.oldLine - context);
  const end = Math.min(oldLines.length, last.oldLine + last.removed.length + context);
  const body: string[] = [];
  let oldCount = 0;
  let newCount = 0;
  let at = start;
  for (const block of hunk) {
    for (; at < block.oldLine; at += 1) body.push(...render(' ', oldLines[at]));
    for (const line of block.removed) body.push(...render('-', line));
    for (const line of block.added) body.push(...render('+', line));
    oldCount += block.removed.length;
    newCount += block.added.length;
    at = block.oldLine + block.removed.length;
  }
  for (; at < end; at += 1) body.push(...render(' ', oldLines[at]));
  const unchanged = end - start - oldCount;
  oldCount += unchanged;
  newCount += unchanged;
  const newStart = first.newLine - (first.oldLine - start);
  // An empty side names the line before it (0 for the start of the file).
  const oldHead = oldCount === 0 ? start : start + 1;
  const newHead = newCount === 0 ? newStart : newStart + 1;
  return [`@@ -${oldHead},${oldCount} +${newHead},${newCount} @@`, ...body];
};

/**
 * The unified diff between `before` and `after`, where `after` is `before`
 * with each of `changes` (sorted, not overlapping) applied. Empty when
 * nothing changed.
 */
export const unifiedDiff = (
  before: string,
  after: string,
  changes: readonly TextChange[],
  { path, context = 3 }: DiffOptions,
): string => {
  const oldStarts = lineStarts(before);
  const texts: Texts = {
    before,
    after,
    oldStarts,
    newStarts: lineStarts(after),
    oldLines: splitLines(before),
    startOf: line => oldStarts[line] ?? before.length,
  };
  const windows = windowsOf(texts, changes);
  joinBrokenLines(texts, windows);
  const blocks = blocksOf(texts, windows);
  if (blocks.length === 0) return '';
  const hunks = hunksOf(blocks, context).map(hunk => renderHunk(texts.oldLines, hunk, context));
  return `${[`--- a/${path}`, `+++ b/${path}`, ...hunks.flat()].join('\n')}\n`;
};
harden(unifiedDiff);

// What the host reads when fae asks its approval: which tool, who asked
// (in the turn of which message), and the arguments in full: the command
// line of runCommand; for editFile and edit a unified diff of each
// replacement; for writeFile the first lines of the new content; for any
// other tool each argument. Very long content is cut, and the text says
// where and how much. Every argument is redacted before it is cut, so no
// secret slips through in halves.
import type { Redact } from '../../logging/redact.js';
import { unifiedDiff } from '../../tool-kit/unified-diff.js';

/** Every request's first words: how fae (after a restart) and the chat know one. */
export const APPROVAL_HEADING = 'Approval needed:';

/** Lines of one block (a diff, new content, a long argument) shown, at most. */
const SHOWN_LINES = 60;
/** Characters of one line shown, at most. */
const LINE_CHARS = 400;
/** Characters of the whole text, at most (a form's description is read in the UI). */
const TEXT_CHARS = 20_000;

export interface ApprovalCall {
  /** The name the model called. */
  readonly tool: string;
  /** The tool's own names, for one under tools/. */
  readonly ownName?: string;
  readonly petName?: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** Whoever asked, as fae names them (a pet name, or "an unnamed sender"). */
  readonly asker: string;
  /** Whoever asked is the host, who reads the request. */
  readonly askerIsHost?: boolean;
  /** The message whose turn made the call. */
  readonly message: bigint;
  /** Tells this request apart from every other (a few hex digits). */
  readonly tag: string;
}

const lines = (text: string) => text.replace(/\r\n/g, '\n').split('\n');
const cutLine = (line: string) =>
  line.length <= LINE_CHARS ? line : `${line.slice(0, LINE_CHARS)}… [${line.length - LINE_CHARS} more characters of this line not shown]`;

/** A block of text, indented, at most SHOWN_LINES lines, saying what was left out. */
const block = (text: string, prefix = '  ') => {
  const all = lines(text.endsWith('\n') ? text.slice(0, -1) : text);
  const shown = all.slice(0, SHOWN_LINES).map(line => `${prefix}${cutLine(line)}`);
  if (all.length > SHOWN_LINES) shown.push(`${prefix}… (${all.length - SHOWN_LINES} more lines not shown)`);
  return shown.join('\n');
};

const asText = (value: unknown) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)));

/** A replacement of `before` by `after` as a unified diff, its lines counted from the replaced text. */
const replacementDiff = (path: string, before: string, after: string) => {
  const ended = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);
  const [old, next] = [ended(before), ended(after)];
  const diff = unifiedDiff(old, next, [{ oldStart: 0, oldEnd: old.length, newStart: 0, newEnd: next.length }], { path });
  return diff === '' ? '  (the replacement changes nothing)' : block(diff);
};

/** Each argument: short ones on their line, long or multi-line ones as a block. */
const eachArgument = (args: Readonly<Record<string, unknown>>) =>
  Object.entries(args).map(([name, value]) => {
    const text = asText(value);
    return text.includes('\n') || text.length > LINE_CHARS ? `${name}:\n${block(text)}` : `${name}: ${text}`;
  });

const without = (args: Readonly<Record<string, unknown>>, ...names: string[]) =>
  Object.fromEntries(Object.entries(args).filter(([name]) => !names.includes(name)));

/** edit's changes as diffs, or undefined when they are not pairs of texts. */
const editDiffs = (path: string, { oldText, newText, edits }: Readonly<Record<string, unknown>>) => {
  const pairs: unknown[] = Array.isArray(edits) ? edits : [{ oldText, newText }];
  const isPair = (pair: unknown): pair is { oldText: string; newText?: unknown } =>
    typeof pair === 'object' && pair !== null && typeof (pair as { oldText?: unknown }).oldText === 'string';
  if (!pairs.every(isPair)) return undefined;
  return pairs.map((pair, i) => {
    const heading = pairs.length > 1 ? `Change ${i + 1} of ${pairs.length}:\n` : '';
    return `${heading}${replacementDiff(path, pair.oldText, typeof pair.newText === 'string' ? pair.newText : '')}`;
  });
};

/** evaluate's code and what it receives from fae's directory. */
const codeLines = (source: string, endowments: unknown) => {
  const given = typeof endowments === 'object' && endowments !== null ? Object.entries(endowments) : [];
  return [
    'The code (JavaScript, run in a fresh worker, where E, Far, M and makeExo are there too):',
    block(source, '  | '),
    given.length === 0 ? 'It receives nothing from fae\'s directory.' : 'It receives, from fae\'s directory:',
    ...given.map(([codeName, petName]) => `  ${codeName}: ${asText(petName)}`),
  ];
};

/** The arguments as the host reads them, by what the tool is (its schema name). */
const argumentLines = (name: string, args: Readonly<Record<string, unknown>>): string[] => {
  const { command, filePath, contents, oldString, newString, path, source } = args;
  if (name === 'evaluate' && typeof source === 'string') return codeLines(source, args.endowments);
  if (name === 'runCommand' && typeof command === 'string') {
    return ['The command:', block(command, '  $ '), ...eachArgument(without(args, 'command'))];
  }
  if (name === 'writeFile' && typeof filePath === 'string' && typeof contents === 'string') {
    const count = lines(contents).length;
    return [`Write ${filePath}: ${contents.length} characters, ${count} lines. The new content:`, block(contents, '  | ')];
  }
  if (name === 'editFile' && typeof filePath === 'string' && typeof oldString === 'string' && typeof newString === 'string') {
    return [
      `Edit ${filePath}, replacing one exact text (line numbers count from the replaced text, not the file):`,
      replacementDiff(filePath, oldString, newString),
    ];
  }
  const diffs = name === 'edit' && typeof path === 'string' ? editDiffs(path, args) : undefined;
  if (diffs !== undefined) {
    return [`Edit ${path}, all changes or none (line numbers count from each replaced text, not the file):`, ...diffs];
  }
  return Object.keys(args).length === 0 ? ['(no arguments)'] : eachArgument(args);
};

/** Redacts every text inside the arguments, before anything is cut. */
const redactedArgs = (args: Readonly<Record<string, unknown>>, redact: Redact): Record<string, unknown> => {
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return redact(value);
    if (Array.isArray(value)) return value.map(walk);
    if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
    return value;
  };
  return walk(args) as Record<string, unknown>;
};

/** The request's first line: what it is about, and its tag. */
export const approvalTitle = ({ tool, asker, tag }: Pick<ApprovalCall, 'tool' | 'asker' | 'tag'>) =>
  `${APPROVAL_HEADING} ${tool} for ${asker} (request ${tag})`;
harden(approvalTitle);

/**
 * The whole request: its title, what is asked, the arguments, how long
 * fae waits, and `answering`, how the host answers where it reads this.
 */
export const approvalText = (call: ApprovalCall, { redact, waitText, answering }: { redact: Redact; waitText: string; answering: string }) => {
  const where = call.petName === undefined ? 'a built-in tool' : `tools/${call.petName}`;
  const body = [
    approvalTitle(call),
    '',
    `While answering ${call.askerIsHost ? 'your' : `${call.asker}'s`} message #${call.message}, fae's model wants to call ${call.tool} (${where}), which needs your approval first. Nothing runs until you approve.`,
    '',
    ...argumentLines(call.ownName ?? call.tool, redactedArgs(call.args, redact)),
    '',
    `I wait ${waitText} for your answer; after that it counts as a denial.`,
    answering,
  ].join('\n');
  const text = body.length <= TEXT_CHARS ? body : `${body.slice(0, TEXT_CHARS)}\n… (${body.length - TEXT_CHARS} more characters not shown)`;
  return redact(text);
};
harden(approvalText);

/** A duration in words: "10 minutes", "45 seconds". */
export const durationText = (ms: number) => {
  if (ms < 1000) return `${ms} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds % 60 === 0 && seconds >= 60) return `${seconds / 60} minute${seconds === 60 ? '' : 's'}`;
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
};
harden(durationText);

/** A short account of the arguments for the audit log. */
export const argumentsSummary = (args: Readonly<Record<string, unknown>>, redact: Redact) =>
  redact(Object.entries(args).map(([name, value]) => `${name}=${asText(value).slice(0, 80)}`).join(' ')).slice(0, 300);
harden(argumentsSummary);

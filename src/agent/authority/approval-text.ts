// What the host reads when fae asks its approval: a title that asks the
// question in one line ("run `ls -la` for alice?"), then, as markdown, who
// asked (in the turn of which message) and the arguments, every one whole
// and every block fenced: the command line of runCommand; for editFile and
// edit a unified diff of each replacement; for writeFile the whole new
// content; for any other tool each argument. The host approves exactly
// what runs, so nothing is cut and nothing redacted: arguments that hold
// what looks like a secret, or too much to read, are refused before anyone
// is asked (unshownArguments), and a character that would not show (a
// control or formatting character, which could hide what follows it) is
// written as its code.
import type { Redact } from '../../logging/redact.js';
import { unifiedDiff } from '../../tool-kit/unified-diff.js';
import { senderWord } from './sender-names.js';

/** Every request's first words: how fae (after a restart) and the chat know one. */
export const APPROVAL_HEADING = 'Approval needed:';

/** Characters of arguments the host is shown, at most: more is refused, not cut. */
export const SHOWN_ARGUMENT_CHARS = 50_000;

export interface ApprovalCall {
  /** The name the model called. */
  readonly tool: string;
  /** The tool's own names, for one under tools/. */
  readonly ownName?: string;
  readonly petName?: string;
  /** For a capability that is not a FaeTool: the method called. */
  readonly method?: string;
  /** The arguments that name a capability in fae's directory, which the call would receive. */
  readonly capabilityArgs?: readonly string[];
  readonly args: Readonly<Record<string, unknown>>;
  /** Whoever asked, as fae names them (a pet name, or "an unnamed sender"). */
  readonly asker: string;
  /** Whoever asked is the host, who reads the request. */
  readonly askerIsHost?: boolean;
  /** The message whose turn made the call, by its first words, quoted (its number is fae's own). */
  readonly about?: string;
  /** Tells this request apart from every other (a few hex digits). */
  readonly tag: string;
  /** This very call was approved before fae was restarted, and may have run. */
  readonly mayHaveRun?: boolean;
}

const lines = (text: string) => text.replace(/\r\n/g, '\n').split('\n');

/** How many lines a file of `text` has: a last newline ends a line, it starts none. */
export const lineCount = (text: string) => (text === '' ? 0 : lines(text.endsWith('\n') ? text.slice(0, -1) : text).length);
harden(lineCount);

/**
 * `text` with every character that would not show as itself written as
 * its code (\u{202e}): controls but tab and newline, and the invisible
 * formatting characters (bidirectional overrides, zero-width spaces),
 * which could make a line read otherwise than it runs.
 */
export const showingEverything = (text: string) =>
  text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Cf}\u2028\u2029]/gu, char => `\\u{${char.codePointAt(0)?.toString(16)}}`);
harden(showingEverything);

/**
 * A block of text, whole, fenced as markdown code (`language` names its
 * kind: sh, diff, js), with a fence longer than any run of backticks in it.
 */
export const block = (text: string, language = '') => {
  const shown = lines(text.endsWith('\n') ? text.slice(0, -1) : text).map(showingEverything);
  const longest = Math.max(2, ...shown.map(line => Math.max(0, ...(line.match(/`+/g) ?? []).map(run => run.length))));
  const fence = '`'.repeat(longest + 1);
  return [`${fence}${language}`, ...shown, fence].join('\n');
};
harden(block);

const asText = (value: unknown) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)));

/** A replacement of `before` by `after` as a unified diff, its lines counted from the replaced text. */
const replacementDiff = (path: string, before: string, after: string) => {
  const ended = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);
  const [old, next] = [ended(before), ended(after)];
  const diff = unifiedDiff(old, next, [{ oldStart: 0, oldEnd: old.length, newStart: 0, newEnd: next.length }], { path });
  return diff === '' ? '(the replacement changes nothing)' : block(diff, 'diff');
};

/** Whether `text` shows whole as inline code on one short line. */
const isInline = (text: string, most = 200) => !/[\n`]/.test(text) && text.length <= most;

/** Each argument: short ones as an item of a list, in code; long or multi-line ones as a block. */
const eachArgument = (args: Readonly<Record<string, unknown>>, capabilityArgs: readonly string[] = []) =>
  Object.entries(args).map(([name, value]) => {
    const text = asText(value);
    // The call would receive what that name holds in fae's directory, not the text.
    const given = capabilityArgs.includes(name) ? ' (the capability fae holds by this name, handed to the call)' : '';
    return isInline(text) ? `- ${name}: \`${showingEverything(text)}\`${given}` : `${name}${given}:\n${block(text)}`;
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
    block(source, 'js'),
    given.length === 0 ? 'It receives nothing from fae\'s directory.' : 'It receives, from fae\'s directory:',
    ...given.map(([codeName, petName]) => `- ${codeName}: ${showingEverything(asText(petName))}`),
  ];
};

/** The arguments as the host reads them, by what the tool is (its schema name). */
const argumentLines = (name: string, args: Readonly<Record<string, unknown>>, capabilityArgs?: readonly string[]): string[] => {
  const { command, filePath, contents, oldString, newString, path, source } = args;
  if (name === 'evaluate' && typeof source === 'string') return codeLines(source, args.endowments);
  if (name === 'runCommand' && typeof command === 'string') {
    return ['The command:', block(command, 'sh'), ...eachArgument(without(args, 'command'))];
  }
  if (name === 'writeFile' && typeof filePath === 'string' && typeof contents === 'string') {
    const count = lineCount(contents);
    return [`Write ${showingEverything(filePath)}: ${contents.length} characters, ${count} line${count === 1 ? '' : 's'}. The new content, whole:`, block(contents)];
  }
  if (name === 'editFile' && typeof filePath === 'string' && typeof oldString === 'string' && typeof newString === 'string') {
    return [
      `Edit ${showingEverything(filePath)}, replacing one exact text (line numbers count from the replaced text, not the file):`,
      replacementDiff(filePath, oldString, newString),
    ];
  }
  const diffs = name === 'edit' && typeof path === 'string' ? editDiffs(path, args) : undefined;
  if (diffs !== undefined && typeof path === 'string') {
    return [`Edit ${showingEverything(path)}, all changes or none (line numbers count from each replaced text, not the file):`, ...diffs];
  }
  return Object.keys(args).length === 0 ? ['(no arguments)'] : eachArgument(args, capabilityArgs);
};

/** Every text inside the arguments, wherever it sits. */
const textsIn = (value: unknown): string[] => {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(textsIn);
  if (typeof value === 'object' && value !== null) return [...Object.keys(value), ...Object.values(value).flatMap(textsIn)];
  return [];
};

/**
 * Why the arguments cannot be shown to the host whole, if they cannot:
 * they hold what looks like a secret (fae's own, or a credential's shape),
 * which no request shows and no such call sends, or more than the host can
 * read. Undefined when they can.
 */
export const unshownArguments = (args: Readonly<Record<string, unknown>>, redact: Redact): string | undefined => {
  const texts = textsIn(args);
  if (texts.some(text => redact(text) !== text)) {
    return 'The arguments hold what looks like a secret (a key, a token or a password), so the call was neither shown to the host nor run. Do not pass secrets to tools; tell the sender this has to be done another way.';
  }
  const size = JSON.stringify(args)?.length ?? 0;
  if (size > SHOWN_ARGUMENT_CHARS) {
    return `The arguments are too long for the host to read whole (${size} characters; at most ${SHOWN_ARGUMENT_CHARS}), so the call was not run. Do it in smaller parts.`;
  }
  return undefined;
};
harden(unshownArguments);

/** "your message", "alice's message" or "the message … from an unnamed sender (…)", with its first words where it has some. */
const messageWords = ({ askerIsHost, asker, about }: { askerIsHost?: boolean; asker: string; about?: string }) => {
  const words = about === undefined ? '' : ` ${about}`;
  if (askerIsHost) return `your message${words}`;
  // A description of several words takes no possessive: "an unnamed sender (…)'s" reads badly.
  return senderWord(asker) === asker ? `${asker}'s message${words}` : `the message${words} from ${asker}`;
};

/** `text` as inline code, every character showing (between double backticks when it holds one). */
const code = (text: string) => (text.includes('`') ? `\`\` ${showingEverything(text)} \`\`` : `\`${showingEverything(text)}\``);

/** Short arguments in a few words ("what: x, times: 2"), if they are that short. */
const fewWords = (args: Readonly<Record<string, unknown>>) => {
  const words = Object.entries(args)
    .map(([name, value]) => `${name}: ${asText(value)}`)
    .join(', ');
  // No arguments: nothing to say in brackets.
  return words !== '' && isInline(words, 60) ? showingEverything(words) : undefined;
};

/** A path short enough for a title, on one line. */
const isShortName = (text: string) => !text.includes('\n') && text.length <= 80;

/** What a call does, in a few words on one line: "run `ls -la`", "write `notes.txt` (2 lines)". */
const whatCallDoes = ({ tool, ownName, args, petName, method }: Pick<ApprovalCall, 'tool' | 'ownName' | 'args' | 'petName' | 'method'>) => {
  const { command, filePath, contents, path, edits, source } = args;
  if (method !== undefined && petName !== undefined) {
    const words = fewWords(args);
    return `call ${code(`${petName}.${method}`)}${words === undefined ? '' : ` (${words})`}`;
  }
  const name = ownName ?? tool;
  if (name === 'runCommand' && typeof command === 'string') {
    if (!command.includes('\n') && command.length <= 60) return `run ${code(command)}`;
    const count = lineCount(command);
    return count > 1 ? `run a command of ${count} lines` : 'run a long command';
  }
  if (name === 'writeFile' && typeof filePath === 'string' && typeof contents === 'string' && isShortName(filePath)) {
    const count = lineCount(contents);
    return `write ${code(filePath)} (${count} line${count === 1 ? '' : 's'})`;
  }
  if (name === 'editFile' && typeof filePath === 'string' && isShortName(filePath)) return `edit ${code(filePath)}`;
  if (name === 'edit' && typeof path === 'string' && isShortName(path)) {
    return Array.isArray(edits) && edits.length > 1 ? `edit ${code(path)} in ${edits.length} places` : `edit ${code(path)}`;
  }
  if (name === 'evaluate' && typeof source === 'string') return 'run JavaScript code';
  const words = fewWords(args);
  return words === undefined ? `call ${tool}` : `call ${tool} (${words})`;
};

/** Whom the host reads the question for: "you", or the asker as fae names them. */
const forWhom = ({ askerIsHost, asker }: { askerIsHost?: boolean; asker: string }) => (askerIsHost ? 'you' : asker);

/**
 * The request's first line, which asks the question whole and holds the
 * tag that tells it from every other: "Approval needed: run `ls -la` for
 * alice? (request 1a2b)". A form's description is this line alone.
 */
export const approvalTitle = (call: Pick<ApprovalCall, 'tool' | 'ownName' | 'args' | 'asker' | 'askerIsHost' | 'tag' | 'petName' | 'method'>) =>
  `${APPROVAL_HEADING} ${whatCallDoes(call)} for ${forWhom(call)}? (request ${call.tag})`;
harden(approvalTitle);

/** For an asker the host has not named: how to name it, so the next request says who. */
const namingHint = ({ asker, askerIsHost }: Pick<ApprovalCall, 'asker' | 'askerIsHost'>) => {
  const word = senderWord(asker);
  return askerIsHost || word === asker ? [] : [`(To call this sender by a name of yours from now on, answer me \`/name ${word} NAME\`.)`, ''];
};

/**
 * The whole request, as markdown: its title, what is asked, the arguments,
 * how long fae waits, and `answering`, how the host answers where it reads
 * this. The arguments are shown as they are (unshownArguments refuses those
 * that cannot be): nothing here is cut or redacted.
 */
export const approvalText = (call: ApprovalCall, { waitText, answering }: { waitText: string; answering: string }) => {
  const where =
    call.petName === undefined
      ? 'a built-in tool'
      : call.method === undefined
        ? `tools/${call.petName}`
        : `the method ${call.method} of the capability tools/${call.petName}, called as it is, with no tool made for fae around it`;
  return [
    approvalTitle(call),
    '',
    `While answering ${messageWords(call)}, fae's model wants to call ${call.tool} (${where}), which needs your approval first. Nothing runs until you approve. What runs is shown whole below.`,
    '',
    ...namingHint(call),
    ...(call.mayHaveRun
      ? ['This very call was approved before I was restarted, and it may have run already. Approve it only if it should run again.', '']
      : []),
    ...argumentLines(call.ownName ?? call.tool, call.args, call.capabilityArgs),
    '',
    `I wait ${waitText} for your answer; after that it counts as a denial.`,
    answering,
  ].join('\n');
};
harden(approvalText);

/** What fae's model wants to hand over, to whom, and how, as the host reads it. */
export interface GiveCall {
  readonly how: 'send' | 'reply' | 'resolve' | 'copy' | 'move';
  /** The capabilities, as the model named them. */
  readonly items: readonly string[];
  /** Who would hold them, in words ("bob", "the directory shared/"). */
  readonly recipient: string;
  readonly asker: string;
  readonly askerIsHost?: boolean;
  /** The message whose turn wants it, by its first words, quoted. */
  readonly about?: string;
  readonly tag: string;
}

const HOW: Readonly<Record<GiveCall['how'], string>> = harden({
  send: 'attached to a message it sends',
  reply: 'attached to a reply',
  resolve: 'as its answer to their request',
  copy: 'by copying it into a directory they can read',
  move: 'by moving it into a directory they can read',
});

/** The first line of a request to hand something over ("give `counter` to alice?" when alice asked for herself). */
export const giveTitle = (call: Pick<GiveCall, 'items' | 'recipient' | 'asker' | 'askerIsHost' | 'tag'>) => {
  const items = call.items.map(code).join(', ');
  const to = call.recipient === call.asker ? forWhom(call) : `${call.recipient} for ${forWhom(call)}`;
  return `${APPROVAL_HEADING} give ${items} to ${to}? (request ${call.tag})`;
};
harden(giveTitle);

/** The whole request to hand something over, as markdown: what, to whom, how, and what that means. */
export const giveApprovalText = (call: GiveCall, { waitText, answering }: { waitText: string; answering: string }) =>
  [
    giveTitle(call),
    '',
    `While answering ${messageWords(call)}, fae's model wants to hand this to ${call.recipient}, ${HOW[call.how]}:`,
    '',
    ...call.items.map(item => `- ${code(item)}`),
    '',
    `Whoever holds a capability can use it themselves, for as long as it exists, without asking you or fae. Nothing is handed over until you approve.`,
    '',
    `I wait ${waitText} for your answer; after that it counts as a denial.`,
    answering,
  ].join('\n');
harden(giveApprovalText);

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

// Mail whose whole text is one of a few commands is answered by fae
// itself, at once, without the model: /help, /tools, /status, /settings,
// /approvals and /revoke N (the host's only) and /forget. A command takes its turn in its sender's lane like
// any message (so it stays in order with the sender's other mail), and is
// not kept in the conversation.
import type { InboxMessage } from '../../daemon/adapter.js';
import { messageText } from '../../daemon/message-format.js';
import type { DiscoveredTools } from '../../toolbox/discovered-tools.js';
import { BUILT_IN_GROUPS } from '../../toolbox/built-ins/built-in-tools.js';
import { describeUsage, type UsageView } from '../../usage/usage-view.js';
import { utcMinute } from '../../utc-minute.js';
import { DEFAULT_APPROVAL_WORDS } from '../authority/approval-policy.js';

export type Command = 'help' | 'tools' | 'status' | 'usage' | 'forget' | 'settings' | 'approvals' | 'revoke' | 'name';

const COMMANDS: ReadonlyMap<string, Command> = new Map([
  ['/help', 'help'],
  ['/tools', 'tools'],
  ['/status', 'status'],
  ['/usage', 'usage'],
  ['/forget', 'forget'],
  ['/settings', 'settings'],
  ['/approvals', 'approvals'],
]);

/**
 * `/revoke N`: the one command with an argument, a grant's number. The
 * number may follow without a space (`/revoke2`, `/revoke#2`): the Endo
 * Chat UI's chat bar takes a message that starts with `/` for one of its
 * own commands and swallows the space typed after the word, so that is
 * what it sends for `/revoke 2`.
 */
const REVOKE = /^\/revoke(?:\s+#?(\S+)|#?(\d+))?$/;

/** `/name WHO NAME`: the host names a correspondent for fae (the space after the word may be swallowed, as for /revoke). */
const NAME = /^\/name\s*(\S+)\s+(\S+)$/;

/** The command a message is, if its whole text (trimmed) is one. */
export const commandOf = (message: InboxMessage): Command | undefined => {
  if (message.type !== 'package' || (message.names ?? []).length > 0) return undefined;
  const text = messageText(message).trim();
  return COMMANDS.get(text) ?? (REVOKE.test(text) ? 'revoke' : NAME.test(text) ? 'name' : undefined);
};
harden(commandOf);

/** The argument of a command (the N of /revoke N; "WHO NAME" of /name), if it has one. */
export const commandArgument = (message: InboxMessage): string | undefined => {
  const text = messageText(message).trim();
  const named = NAME.exec(text);
  if (named !== null) return `${named[1]} ${named[2]}`;
  const revoked = REVOKE.exec(text);
  return revoked?.[1] ?? revoked?.[2];
};
harden(commandArgument);

/** What /status tells of fae's status() (every field is free of secrets). */
export interface StatusView {
  readonly state: string;
  readonly provider: string;
  readonly model: string;
  readonly handledMessages: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly conversations: number;
  readonly storage: string;
  readonly storageError: string;
  readonly unstoredTurns: number;
  readonly lastError: string;
  readonly lastErrorAt: string;
  /** When this run of fae started (ISO): what the counts above count since. */
  readonly startedAt: string;
  /** What model calls have cost, as stored across restarts (status().usage). */
  readonly usage?: UsageView;
}

/** What answering a command works with. */
export interface CommandContext {
  readonly fromHost: boolean;
  /** fae's name for who asked: their own line of /usage reads "you". */
  readonly sender?: string;
  /** The tools on offer in this turn. */
  readonly tools: DiscoveredTools;
  readonly status: () => StatusView;
  /**
   * Forgets the sender's conversation, as forgetConversation does
   * (a failure is noted on the turn, for its closing notice).
   */
  readonly forget: () => Promise<unknown>;
  /** Mails the host the settings form; false where the daemon has no forms. */
  readonly askSettings: () => boolean;
  /** What needs the host's approval now, and its standing grants (status().approvals). */
  readonly approvals: () => ApprovalsView;
  /** Revokes a standing grant; resolves whether there was one. */
  readonly revoke: (number: number) => Promise<boolean>;
  /** Names a correspondent for fae (/name WHO NAME); resolves to what to tell the host. */
  readonly name?: (who: string, name: string) => Promise<string>;
  /** The command's argument (the N of /revoke N). */
  readonly argument?: string;
}

/** What /approvals tells of status().approvals. */
export interface ApprovalsView {
  readonly policy: string;
  readonly policyFrom: string;
  readonly grants: readonly { readonly number: number; readonly tool: string; readonly for: string; readonly granted: string }[];
  readonly waiting?: number;
}

const helpText = (fromHost: boolean) =>
  [
    'I answer these myself, at once:',
    '',
    '- /help — this list',
    '- /tools — the tools I can use now',
    ...(fromHost
      ? [
          '- /status — how I am doing (for you, my host)',
          '- /usage — what my model calls have cost, in all and per correspondent (for you, my host)',
          '- /settings — a form to change my language model (for you, my host)',
          '- /approvals — what needs your approval, and your standing approvals (for you, my host)',
          '- /revoke N — revoke standing approval N (for you, my host)',
          '- /name WHO NAME — call a correspondent NAME from now on, WHO being how I call it now, as in /name unnamed-1a2b3c4d alice (for you, my host)',
        ]
      : []),
    '- /forget — forget our conversation, so that your next message starts afresh',
    '',
    'Anything else you write, I answer with my language model and my tools. Mail me a tool as @name and I can adopt it and use it at once.',
  ].join('\n');

/** The first line of a description, short. */
const oneLine = (description: string) => {
  const line = description.trim().split('\n')[0];
  return line.length <= 100 ? line : `${line.slice(0, 99)}…`;
};

/**
 * The tools on offer. The host reads each tool's pet name and the first
 * line of its description; anyone else only the names, since a
 * description may say where a tool works (the filesystem tools' root) or
 * whom it reaches, which is the host's setup, not theirs to read.
 */
const toolsText = ({ schemas, origins }: DiscoveredTools, fromHost: boolean) => {
  const builtIns = schemas.map(schema => schema.function.name).filter(name => !origins.has(name));
  const grouped = new Set(BUILT_IN_GROUPS.flatMap(({ names }) => names));
  const labelled = BUILT_IN_GROUPS.map(({ label, names }) => [label, names] as const);
  const groups = [...labelled, ['other', builtIns.filter(name => !grouped.has(name))] as const]
    .map(([label, names]) => [label, names.filter(name => builtIns.includes(name))] as const)
    .filter(([, names]) => names.length > 0)
    .map(([label, names]) => `- ${label}: ${names.join(', ')}`);
  const adopted = schemas
    .filter(schema => origins.has(schema.function.name))
    .map(({ function: { name, description } }) =>
      fromHost ? `- ${name} (tools/${origins.get(name)?.petName}) — ${oneLine(description)}` : `- ${name}`,
    );
  return [
    'Built in:',
    ...groups,
    '',
    fromHost ? 'Under tools/:' : 'Tools I was given:',
    ...(adopted.length > 0 ? adopted : ['- none yet: mail me a tool as @name and I can adopt it']),
  ].join('\n');
};

/** An ISO time as a person reads it: "2026-11-28 22:40". */

const statusText = (status: StatusView) => {
  const storage =
    status.storage === 'ok'
      ? 'storage ok'
      : `storage ${status.storage}${status.storageError === '' ? '' : ` (${status.storageError})`}`;
  const unstored = status.unstoredTurns > 0 ? `; ${status.unstoredTurns} turns not stored yet` : '';
  return [
    `I am ${status.state}, on the model ${status.model} (${status.provider}).`,
    '',
    `- since I started (${utcMinute(status.startedAt)}): ${status.handledMessages} messages handled, ${status.inputTokens} tokens in, ${status.outputTokens} out`,
    ...(status.usage?.total === undefined
      ? []
      : [`- in all${status.usage.since === undefined ? '' : ` since ${utcMinute(status.usage.since)}`}: ${status.usage.total.requests} model calls, ${status.usage.total.inputTokens} tokens in, ${status.usage.total.outputTokens} out (/usage tells more)`]),
    `- conversations: ${status.conversations}; ${storage}${unstored}`,
    ...(status.lastError === '' ? [] : [`- last error (${utcMinute(status.lastErrorAt)}): ${status.lastError}`]),
  ].join('\n');
};

const approvalsText = ({ policy, policyFrom, grants, waiting }: ApprovalsView) =>
  [
    policy === 'none'
      ? `Nothing needs your approval (none, from ${policyFrom}).`
      : `Calls that need your approval: ${policy.replace(/\bdefault\b/g, `default (${DEFAULT_APPROVAL_WORDS})`)} (from ${policyFrom}), and those of any tool that asks for it itself (a capability's methods do, unless marked readonly).`,
    ...(waiting === undefined || waiting === 0 ? [] : [`Waiting for your answer now: ${waiting}.`]),
    '',
    ...(grants.length === 0
      ? ['No standing approvals.']
      : [
          'Standing approvals (/revoke N revokes one):',
          ...grants.map(grant => `- ${grant.number}: ${grant.tool} for ${grant.for}, since ${utcMinute(grant.granted)}`),
        ]),
  ].join('\n');

const revokeText = async (context: CommandContext) => {
  const number = Number(context.argument);
  if (context.argument === undefined || !Number.isSafeInteger(number) || number < 1) {
    return `Say which standing approval to revoke by its number, as in "/revoke 2"; /approvals lists them.`;
  }
  return (await context.revoke(number))
    ? `Revoked standing approval ${number}: from the next call on, I ask you again.`
    : `There is no standing approval ${number}; /approvals lists them.`;
};

/**
 * fae's answer to a command; undefined when there is nothing to say but
 * the turn's own notices (a /forget that failed).
 */
export const answerCommand = async (command: Command, context: CommandContext): Promise<string | undefined> => {
  switch (command) {
    case 'help':
      return helpText(context.fromHost);
    case 'tools':
      return toolsText(context.tools, context.fromHost);
    case 'status':
      return context.fromHost ? statusText(context.status()) : '/status is for my host. /help lists what I answer myself.';
    case 'usage':
      return context.fromHost ? describeUsage(context.status().usage, context.sender) : '/usage is for my host. /help lists what I answer myself.';
    case 'approvals':
      return context.fromHost ? approvalsText(context.approvals()) : '/approvals is for my host. /help lists what I answer myself.';
    case 'revoke':
      return context.fromHost ? revokeText(context) : '/revoke is for my host. /help lists what I answer myself.';
    case 'name': {
      if (!context.fromHost) return '/name is for my host. /help lists what I answer myself.';
      const [who, name] = (context.argument ?? '').split(' ');
      return context.name === undefined ? 'I cannot keep names here.' : context.name(who, name);
    }
    case 'settings':
      if (!context.fromHost) return '/settings is for my host. /help lists what I answer myself.';
      return context.askSettings()
        ? 'I have sent you a form with my language model settings; the token is never shown. Submit it and I use the new settings at once.'
        : 'My settings cannot be changed from here on this daemon; set me up again from a terminal (setup-replace).';
    default: {
      const forgotten = await context.forget().then(
        () => true,
        () => false,
      );
      return forgotten ? 'I have forgotten our conversation; your next message starts afresh.' : undefined;
    }
  }
};
harden(answerCommand);

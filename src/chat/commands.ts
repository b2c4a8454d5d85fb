// The chat's slash commands: what a typed line means, and what each
// command does against the session. Anything that is not a command is a
// message to fae.
import { q } from '@endo/errors';
import type { ChatSession } from './session.js';
import { CHAT_TOOLS } from './session.js';
import type { Screen } from './screen.js';
import { describeInbox } from './inbox-view.js';
import { describeUsage, type UsageView } from '../usage/usage-view.js';
import type { WaitingApproval } from './approvals.js';
import type { ApprovalsView } from '../agent/host/commands.js';

export const COMMANDS: readonly { readonly usage: string; readonly summary: string }[] = harden([
  { usage: '/help', summary: 'show these commands' },
  { usage: '/tools', summary: 'list the tools you can give fae' },
  { usage: '/give <tool> [message]', summary: 'mail fae a tool capability (with a note) for it to adopt' },
  { usage: '/inbox [N]', summary: 'show your inbox: the conversation so far (long messages cut); N: message #N whole' },
  { usage: '/list', summary: "show fae's pet names, its adopted tools and your standing approvals" },
  { usage: '/approve [TAG]', summary: "approve fae's request (TAG: its four hex digits, when several wait)" },
  { usage: '/deny [TAG] [reason]', summary: "deny fae's request; the reason is told to the model" },
  { usage: '/always [TAG] [for everyone]', summary: 'approve, and from now on for whoever asked (or for everyone)' },
  { usage: '/revoke N', summary: 'revoke standing approval N (/list shows them)' },
  { usage: '/usage', summary: "what fae's model calls have cost: in all, per model, per correspondent" },
  { usage: '/reset', summary: 'restart fae with an empty conversation (adopted tools stay)' },
  { usage: '/forget, /status, …', summary: "fae's own commands go to fae, which answers them itself (/forget forgets your conversation)" },
  { usage: '/quit', summary: 'stop fae and leave (so do Ctrl-C and Ctrl-D)' },
]);

export const HELP_TEXT = [
  'Type a message and press Enter to mail it to fae; you are HOST. Commands:',
  ...COMMANDS.map(({ usage, summary }) => `  ${usage.padEnd(24)} ${summary}`),
].join('\n');

export type Command =
  | { readonly kind: 'empty' }
  | { readonly kind: 'message'; readonly text: string }
  | { readonly kind: 'help' | 'tools' | 'list' | 'usage' | 'reset' | 'quit' }
  | { readonly kind: 'inbox'; readonly number?: bigint }
  | { readonly kind: 'give'; readonly tool: string; readonly text: string | undefined }
  | { readonly kind: 'decide'; readonly decision: string; readonly ref: string | undefined; readonly reason: string }
  | { readonly kind: 'revoke'; readonly number: number }
  | { readonly kind: 'invalid'; readonly problem: string };

const SIMPLE = harden(['help', 'tools', 'list', 'usage', 'reset', 'quit'] as const);

/** Commands fae answers itself over mail (src/agent/host/commands.ts), which the chat has none of its own for: mailed as they are. */
const FAE_COMMANDS: ReadonlySet<string> = new Set(['forget', 'status', 'approvals', 'name', 'settings']);
type Simple = (typeof SIMPLE)[number];

/** A request of fae's named by its tag (four hex digits) or its number in your inbox (#N). */
const REQUEST_REF = /^(#\d+|[0-9a-f]{4})$/;

/** /approve [TAG], /deny [TAG] [reason], /always [TAG] [for WHO]. */
const decisionOf = (name: 'approve' | 'deny' | 'always', words: readonly string[]): Command => {
  const [first, ...others] = words;
  const ref = first !== undefined && REQUEST_REF.test(first) ? first : undefined;
  const rest = ref === undefined ? words : others;
  if (name === 'approve' && rest.length > 0) {
    return { kind: 'invalid', problem: `/approve takes no more than a request's tag, as in "/approve 3f9a", not ${q(words.join(' '))}` };
  }
  if (name === 'always' && rest.length > 0 && (rest[0] !== 'for' || rest.length < 2)) {
    return { kind: 'invalid', problem: `Say "/always" (for whoever asked) or "/always for everyone", not ${q(`/always ${words.join(' ')}`)}` };
  }
  const decision = name === 'always' && rest.length > 0 ? `always ${rest.join(' ')}` : name;
  return { kind: 'decide', decision, ref, reason: name === 'deny' ? rest.join(' ') : '' };
};

/** What one typed line asks for. */
export const parseLine = (line: string): Command => {
  const text = line.trim();
  if (text === '') return { kind: 'empty' };
  if (!text.startsWith('/')) return { kind: 'message', text };
  const [word, ...rest] = text.slice(1).split(/\s+/);
  const name = word.toLowerCase();
  if (name === 'exit') return { kind: 'quit' };
  if (FAE_COMMANDS.has(name)) return { kind: 'message', text };
  if ((SIMPLE as readonly string[]).includes(name)) {
    if (rest.length > 0) {
      return { kind: 'invalid', problem: `/${name} takes no arguments` };
    }
    return { kind: name as Simple };
  }
  if (name === 'inbox') {
    if (rest.length === 0) return { kind: 'inbox' };
    const wanted = rest.length === 1 ? /^#?(\d+)$/.exec(rest[0]) : null;
    if (wanted === null) {
      return { kind: 'invalid', problem: `/inbox takes a message number, as in "/inbox 3", not ${q(rest.join(' '))}` };
    }
    return { kind: 'inbox', number: BigInt(wanted[1]) };
  }
  if (name === 'approve' || name === 'deny' || name === 'always') return decisionOf(name, rest);
  if (name === 'revoke') {
    const wanted = rest.length === 1 ? /^#?(\d+)$/.exec(rest[0]) : null;
    if (wanted === null) return { kind: 'invalid', problem: `/revoke takes the number of a standing approval, as in "/revoke 2"; /list shows them` };
    return { kind: 'revoke', number: Number(wanted[1]) };
  }
  if (name === 'give') {
    const [tool, ...words] = rest;
    if (tool === undefined) {
      return { kind: 'invalid', problem: 'Say which tool to give, as in "/give greet"; /tools lists them' };
    }
    const note = text.slice(1).replace(/^\S+\s+\S+\s*/, '');
    return { kind: 'give', tool, text: words.length > 0 ? note : undefined };
  }
  return { kind: 'invalid', problem: `Unknown command ${q(`/${word}`)}; /help lists the commands` };
};
harden(parseLine);

/** The host pet name a /give argument means: "greet" or "greet-tool". */
export const resolveToolName = (tool: string): string | undefined => {
  const names = CHAT_TOOLS.map(({ petName }) => petName);
  return [tool, `${tool}-tool`].find(candidate => names.includes(candidate));
};
harden(resolveToolName);

export interface CommandContext {
  readonly session: ChatSession;
  readonly screen: Screen;
  /** Leave the chat now. */
  readonly quit: () => Promise<void>;
}

/** Answers a request of fae's and says so. */
const answered = async (session: ChatSession, screen: Screen, request: WaitingApproval, decision: string, reason: string) => {
  await session.approvals.answer(request, decision, reason);
  screen.note(`(you answered fae's request ${request.tag} to ${request.what}: ${decision}${reason === '' ? '' : `, because ${reason}`})`);
};

/** Carries out one typed line. Failures are shown, never thrown. */
export const runLine = async (line: string, { session, screen, quit }: CommandContext) => {
  const command = parseLine(line);
  try {
    switch (command.kind) {
      case 'empty':
        return;
      case 'message': {
        // A decision typed at the prompt while one request of fae's waits answers it.
        const request = session.approvals.typedDecision(command.text);
        if (request === undefined) await session.say(command.text);
        else await answered(session, screen, request, command.text, '');
        return;
      }
      case 'decide': {
        const request = session.approvals.find(command.ref);
        if (typeof request === 'string') screen.error(request);
        else await answered(session, screen, request, command.decision, command.reason);
        return;
      }
      case 'revoke':
        screen.note(
          (await session.revokeGrant(command.number))
            ? `(standing approval ${command.number} revoked: fae asks you again from its next call on)`
            : `There is no standing approval ${command.number}; /list shows them`,
        );
        return;
      case 'help':
        screen.note(HELP_TEXT);
        return;
      case 'tools': {
        const tools = await session.tools();
        const width = Math.max(...tools.map(tool => tool.petName.length));
        screen.note(
          [
            'Tools you can give fae with /give <tool>:',
            ...tools.map(tool => `  ${tool.petName.padEnd(width)}  ${tool.toolName}: ${tool.description}`),
          ].join('\n'),
        );
        return;
      }
      case 'give': {
        const petName = resolveToolName(command.tool);
        if (petName === undefined) {
          screen.error(`There is no tool ${q(command.tool)}; /tools lists the ones you can give`);
          return;
        }
        await session.give(petName, command.text);
        screen.note(`(you gave fae ${petName})`);
        return;
      }
      case 'inbox': {
        screen.note(describeInbox(await session.inbox(), command.number));
        return;
      }
      case 'list': {
        const [{ names, tools }, status] = await Promise.all([session.names(), session.faeStatus()]);
        const grants = (status as { approvals?: ApprovalsView } | undefined)?.approvals?.grants ?? [];
        screen.note(
          [
            `fae's names: ${names.join(', ')}`,
            `fae's tools: ${tools.length > 0 ? tools.join(', ') : '(none adopted yet)'}`,
            `your standing approvals: ${grants.length === 0 ? '(none)' : grants.map(g => `${g.number}: ${g.tool} for ${g.for}`).join('; ')}`,
          ].join('\n'),
        );
        return;
      }
      case 'usage': {
        const status = (await session.faeStatus()) as { readonly usage?: UsageView } | undefined;
        screen.note(describeUsage(status?.usage, session.hostName));
        return;
      }
      case 'reset':
        await session.reset();
        screen.note('(fae was restarted with an empty conversation; its adopted tools are kept)');
        return;
      case 'quit':
        await quit();
        return;
      case 'invalid':
        screen.error(command.problem);
        return;
      default:
        throw Error(`unhandled command ${q(command)}`);
    }
  } catch (error) {
    screen.error(`That did not work: ${error instanceof Error ? error.message : String(error)}`);
  }
};
harden(runLine);

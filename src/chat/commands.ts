// The chat's slash commands: what a typed line means, and what each
// command does against the session. Anything that is not a command is a
// message to fae.
import { q } from '@endo/errors';
import type { ChatSession } from './session.js';
import { CHAT_TOOLS } from './session.js';
import type { Screen } from './screen.js';
import { describeInbox } from './inbox-view.js';
import { describeUsage, type UsageView } from './usage-view.js';

export const COMMANDS: readonly { readonly usage: string; readonly summary: string }[] = harden([
  { usage: '/help', summary: 'show these commands' },
  { usage: '/tools', summary: 'list the tools you can give fae' },
  { usage: '/give <tool> [message]', summary: 'mail fae a tool capability (with a note) for it to adopt' },
  { usage: '/inbox [N]', summary: 'show your inbox: the conversation so far (long messages cut); N: message #N whole' },
  { usage: '/list', summary: "show fae's pet names and its adopted tools" },
  { usage: '/usage', summary: "what fae's model calls have cost: in all, per model, per correspondent" },
  { usage: '/reset', summary: 'restart fae with an empty conversation (adopted tools stay)' },
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
  | { readonly kind: 'invalid'; readonly problem: string };

const SIMPLE = harden(['help', 'tools', 'list', 'usage', 'reset', 'quit'] as const);
type Simple = (typeof SIMPLE)[number];

/** What one typed line asks for. */
export const parseLine = (line: string): Command => {
  const text = line.trim();
  if (text === '') return { kind: 'empty' };
  if (!text.startsWith('/')) return { kind: 'message', text };
  const [word, ...rest] = text.slice(1).split(/\s+/);
  const name = word.toLowerCase();
  if (name === 'exit') return { kind: 'quit' };
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

/** Carries out one typed line. Failures are shown, never thrown. */
export const runLine = async (line: string, { session, screen, quit }: CommandContext) => {
  const command = parseLine(line);
  try {
    switch (command.kind) {
      case 'empty':
        return;
      case 'message':
        await session.say(command.text);
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
        const { names, tools } = await session.names();
        screen.note(`fae's names: ${names.join(', ')}\nfae's tools: ${tools.length > 0 ? tools.join(', ') : '(none adopted yet)'}`);
        return;
      }
      case 'usage': {
        const status = (await session.faeStatus()) as { readonly usage?: UsageView } | undefined;
        screen.note(describeUsage(status?.usage));
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

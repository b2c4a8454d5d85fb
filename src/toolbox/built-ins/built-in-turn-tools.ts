// The built-ins whose meaning depends on the turn that calls them: `send`
// counts as answering the message that turn handles, `listMessages` shows
// only that turn's correspondent's mail, `forgetConversation` forgets only
// that correspondent. Turns run concurrently, so nothing here may ask
// "which message is being handled now": each of fae's own calls brings
// the scope of the turn that makes it (executeTool hands it to the
// built-in's own execute), and a call from anywhere else, through the
// exo, is one from outside any turn. One tool each, made once: a turn
// used to get instances of its own, three exos made for every message.
import { E } from '@endo/far';
import { makeExo } from '@endo/exo';
import { q } from '@endo/errors';
import { FaeToolInterface } from '../../tool-kit/fae-tool-interface.js';
import type { MessageRecord } from '../../daemon/endo-types.js';
import type { DaemonAdapter } from '../../daemon/adapter.js';
import type { FaeTool } from '../discovered-tools.js';
import { EDGE_NAMES, PET_NAMES, STRINGS, builtInSchema, withOwnExecute, type Args, type PowersIn } from './built-in-tool.js';
import { OUTSIDE_TURNS, type TurnScope } from './turn-scope.js';
import { readNamePath, readStringArray } from './built-in-arguments.js';
import { assertSaysSomething } from './message-content.js';
import { messageText } from '../../daemon/message-format.js';

export interface TurnToolHooks {
  /**
   * Told of every successful send(), with its recipient and the message its
   * turn handles (a send that lands late, after its turn, must not count
   * for another message).
   */
  readonly onSend?: (recipient: readonly string[], forMessage: bigint | undefined) => void;
  /** Offer forgetConversation (each turn's scope says whose conversation). */
  readonly forgets?: boolean;
  /** How listMessages names a sender (fae's own naming, by names the model did not write). */
  readonly nameSender?: (from: string) => Promise<string>;
}

const SEND = builtInSchema(
  'send',
  'Send a message to HOST or to another agent you have a pet name for, optionally attaching capabilities from your directory.',
  {
    // Either spelling of the host's name works on every daemon (adapter.path).
    recipient: { type: 'string', description: 'Who to send to: "HOST" or a pet name.' },
    strings: STRINGS,
    edgeNames: EDGE_NAMES,
    petNames: PET_NAMES,
  },
  ['recipient', 'strings'],
);
const LIST_MESSAGES = builtInSchema(
  'listMessages',
  'List the messages in your inbox: number, type, sender, date and text.',
  {},
  [],
);
const FORGET = builtInSchema(
  'forgetConversation',
  'Forget your whole conversation with the sender of the message you are handling (only theirs), when they ask to start afresh. This exchange is not remembered either.',
  {},
  [],
);

/** Refuses an argument the tool does not take (built-in-tool.ts says why). */
const assertKnownArguments = (args: Args, schema: typeof SEND) => {
  const accepted = Object.keys((schema.function.parameters as { properties: object }).properties);
  const unknown = Object.keys(args).find(key => !accepted.includes(key));
  if (unknown === undefined) return;
  const choices = accepted.length > 0 ? `it accepts ${accepted.map(key => q(key)).join(', ')}` : 'it takes no arguments';
  throw Error(`unknown argument ${q(unknown)}; ${choices}`);
};

/** A message as the listMessages tool reports it. */
const summarize = (message: MessageRecord, sender: string) =>
  harden({
    number: message.number,
    type: message.type,
    from: sender,
    date: message.date,
    text: messageText(message),
  });


/**
 * The turn-bound built-ins over `powers` (already the built-ins' sealed
 * view), by name.
 */
export const makeTurnTools = (
  powersIn: PowersIn,
  provideDaemon: () => Promise<DaemonAdapter>,
  { onSend, forgets = false, nameSender }: TurnToolHooks,
) => {
  const send = async (scope: TurnScope, args: Args) => {
    const asked = readNamePath(args, 'recipient');
    const recipient = (await provideDaemon()).path(asked);
    const strings = readStringArray(args, 'strings');
    const edgeNames = readStringArray(args, 'edgeNames');
    assertSaysSomething('send', strings, edgeNames);
    await E(powersIn(scope)).send(asked, strings, edgeNames, readStringArray(args, 'petNames'));
    onSend?.(recipient, scope.messageNumber);
    return `Sent the message to ${JSON.stringify(recipient.join('/'))}.`;
  };

  const listMessages = async (scope: TurnScope) => {
    // Only the turn's principal's: the view lists no one else's (sealed-powers.ts).
    const [messages, daemon] = await Promise.all([E(powersIn(scope)).listMessages(), provideDaemon()]);
    // fae's own naming when it has one (names the model did not write); else the first name fae's directory holds.
    const name =
      nameSender ??
      ((from: string) => daemon.senderNames(from).then(found => found[0] ?? 'an unnamed sender'));
    // One name look-up per distinct sender, all at once.
    const senders = [...new Set(messages.map(m => m.from))];
    const names = await Promise.all(senders.map(from => name(from).catch(() => 'an unnamed sender')));
    const nameOf = new Map(senders.map((id, i) => [id, names[i]]));
    return messages.map(m => summarize(m, nameOf.get(m.from) ?? 'an unnamed sender'));
  };

  const forget = async ({ forget: forgetSender }: TurnScope) => {
    if (forgetSender === undefined) throw Error('there is no conversation to forget outside a message being handled');
    const count = await forgetSender();
    return `Forgot the conversation (${count} thread${count === 1 ? '' : 's'}); the next message starts afresh.`;
  };

  /** A turn-bound built-in: its own execute takes the calling turn's scope. */
  const turnTool = (schema: typeof SEND, run: (scope: TurnScope, args: Args) => Promise<unknown>): readonly [string, FaeTool] => {
    const execute = async (args: Args, scope: TurnScope = OUTSIDE_TURNS) => {
      assertKnownArguments(args, schema);
      return harden(await run(scope, args));
    };
    const tool = makeExo(`${schema.function.name}BuiltIn`, FaeToolInterface, {
      schema: () => schema,
      execute: (args: Args) => execute(args),
      help: () => schema.function.description,
    });
    return harden([schema.function.name, withOwnExecute(tool, execute) as unknown as FaeTool]);
  };

  const tools = [turnTool(SEND, send), turnTool(LIST_MESSAGES, listMessages)];
  if (forgets) tools.push(turnTool(FORGET, forget));
  return harden(new Map(tools));
};
harden(makeTurnTools);

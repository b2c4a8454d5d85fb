// The built-ins whose meaning depends on the turn that calls them: `send`
// counts as answering the message that turn handles, `listMessages` shows
// only that turn's correspondent's mail, `forgetConversation` forgets only
// that correspondent. Turns run concurrently, so nothing here may ask
// "which message is being handled now": each turn gets its own instances,
// bound to its scope (an exo class per tool, defined once; an instance per
// turn costs microseconds).
import { E } from '@endo/far';
import { defineExoClass } from '@endo/exo';
import { q } from '@endo/errors';
import { FaeToolInterface } from '../tool-kit/fae-tool-interface.js';
import type { GuestPowers, MessageRecord, Ref } from '../daemon/endo-types.js';
import type { DaemonAdapter } from '../daemon/adapter.js';
import type { DiscoveredTools, FaeTool } from './tools.js';
import { EDGE_NAMES, PET_NAMES, STRINGS, builtInSchema, type Args } from './built-in-tool.js';
import { readNamePath, readStringArray } from './built-in-arguments.js';
import { assertSaysSomething } from './message-content.js';
import { messageText } from '../daemon/message-format.js';

/** What a turn tells its own built-ins. */
export interface TurnScope {
  /** The number of the message the turn handles; none outside a turn. */
  readonly messageNumber?: bigint;
  /** Which inbox messages the turn may see: its correspondent's, and fae's own to them. */
  readonly visibleMessage: (message: MessageRecord) => boolean;
  /** Forgets every thread of the turn's correspondent; how many went. */
  readonly forget?: () => Promise<number>;
}

export interface TurnToolHooks {
  /**
   * Told of every successful send(), with its recipient and the message its
   * turn handles (a send that lands late, after its turn, must not count
   * for another message).
   */
  readonly onSend?: (recipient: readonly string[], forMessage: bigint | undefined) => void;
  /** Offer forgetConversation (each turn's scope says whose conversation). */
  readonly forgets?: boolean;
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
 * view): `forTurn(scope)` gives a turn its own.
 */
export const makeTurnTools = (
  powers: Ref<GuestPowers>,
  provideDaemon: () => Promise<DaemonAdapter>,
  { onSend, forgets = false }: TurnToolHooks,
) => {
  const send = async ({ messageNumber }: TurnScope, args: Args) => {
    const asked = readNamePath(args, 'recipient');
    const recipient = (await provideDaemon()).path(asked);
    const strings = readStringArray(args, 'strings');
    const edgeNames = readStringArray(args, 'edgeNames');
    assertSaysSomething('send', strings, edgeNames);
    await E(powers).send(asked, strings, edgeNames, readStringArray(args, 'petNames'));
    onSend?.(recipient, messageNumber);
    return `Sent the message to ${JSON.stringify(recipient.join('/'))}.`;
  };

  const listMessages = async ({ visibleMessage }: TurnScope) => {
    const [allMessages, daemon] = await Promise.all([E(powers).listMessages(), provideDaemon()]);
    const messages = allMessages.filter(visibleMessage);
    // One name look-up per distinct sender, all at once.
    const senders = [...new Set(messages.map(m => m.from))];
    const names = await Promise.all(
      senders.map(id =>
        daemon.senderNames(id).then(
          found => found[0] ?? 'an unnamed sender',
          () => 'an unnamed sender',
        ),
      ),
    );
    const nameOf = new Map(senders.map((id, i) => [id, names[i]]));
    return messages.map(m => summarize(m, nameOf.get(m.from) ?? 'an unnamed sender'));
  };

  const forget = async ({ forget: forgetSender }: TurnScope) => {
    if (forgetSender === undefined) throw Error('there is no conversation to forget outside a message being handled');
    const count = await forgetSender();
    return `Forgot the conversation (${count} thread${count === 1 ? '' : 's'}); the next message starts afresh.`;
  };

  /** One exo class per tool: its instances differ only in their scope. */
  const defineTurnTool = (
    schema: typeof SEND,
    run: (scope: TurnScope, args: Args) => Promise<unknown>,
  ) =>
    defineExoClass(`${schema.function.name}BuiltIn`, FaeToolInterface, (scope: TurnScope) => ({ scope }), {
      schema() {
        return schema;
      },
      async execute(args: Args) {
        assertKnownArguments(args, schema);
        return harden(await run(this.state.scope, args));
      },
      help() {
        return schema.function.description;
      },
    });

  const kinds: (readonly [string, (scope: TurnScope) => FaeTool])[] = [
    ['send', defineTurnTool(SEND, send) as unknown as (scope: TurnScope) => FaeTool],
    ['listMessages', defineTurnTool(LIST_MESSAGES, listMessages) as unknown as (scope: TurnScope) => FaeTool],
  ];
  if (forgets) kinds.push(['forgetConversation', defineTurnTool(FORGET, forget) as unknown as (scope: TurnScope) => FaeTool]);

  return harden({
    /** The turn-bound built-ins of one turn. */
    forTurn: (scope: TurnScope): ReadonlyMap<string, FaeTool> =>
      new Map(kinds.map(([name, make]) => [name, make(scope)] as const)),
  });
};
harden(makeTurnTools);

/**
 * What the model is offered in a turn: the tools on offer, the turn-bound
 * built-ins replaced by the turn's own (a tool under tools/ never takes a
 * built-in's name, offered-tools.ts).
 */
export const withTurnTools = (offered: DiscoveredTools, own: ReadonlyMap<string, FaeTool>): DiscoveredTools => {
  const toolMap = new Map(offered.toolMap);
  for (const [name, tool] of own) if (toolMap.has(name)) toolMap.set(name, tool);
  return harden({ ...offered, toolMap });
};
harden(withTurnTools);

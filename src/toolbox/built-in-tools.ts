// fae's built-in tools: its petname directory (list, lookup, store,
// remove), its mail (reply, dismiss; send and listMessages are bound to
// the turn that calls them, built-in-turn-tools.ts) and adoptTool,
// which installs a mailed tool capability under tools/. Names and
// parameters keep upstream's; `reply` is new (answer by message number,
// since a sender may have no pet name in fae's directory). The rest of the
// set (lal's directory and mail tools, inspect, help) lives in
// built-in-{directory,mail,inspection}-tools.ts.
import { E } from '@endo/far';
import { makeExo } from '@endo/exo';
import { FaeToolInterface } from '../tool-kit/fae-tool-interface.js';
import type { GuestPowers, Ref } from '../daemon/endo-types.js';
import type { DiscoveredTools, FaeTool } from './tools.js';
import { TOOLS_DIRECTORY } from './tools.js';
import { formulaIdOf } from '../daemon/dialect.js';
import type { JsonSchema } from '../../providers/types.js';
import { toMessageNumber } from './tool-arguments.js';
import { readNamePath, readString, readStringArray } from './built-in-arguments.js';
import type { DaemonAdapter } from '../daemon/adapter.js';
import { makeDaemonAdapter } from '../daemon/adapter.js';
import { assertSaysSomething } from './message-content.js';
import type { Logger } from '../logging/log.js';
import { makeDirectoryTools } from './built-in-directory-tools.js';
import { EDGE_NAMES, PET_NAMES, STRINGS, builtInSchema } from './built-in-tool.js';
import { withNameChangeNotice } from './name-change-notice.js';
import { makeMailTools } from './built-in-mail-tools.js';
import { makeInspectionTools } from './built-in-inspection-tools.js';
import { makeSealedPowers, type SealedDirectory } from './sealed-powers.js';
import { makeTurnTools, type TurnScope, type TurnToolHooks } from './built-in-turn-tools.js';

type Args = Readonly<Record<string, unknown>>;

export interface BuiltInToolHooks {
  /** The daemon adapter fae made at start; made on first use otherwise. */
  readonly daemon?: Promise<DaemonAdapter> | DaemonAdapter;
  /** Told of every message the model dismissed. */
  readonly onDismiss?: (number: bigint) => void;
  /** Told of every message number the model answered with reply(). */
  readonly onReply?: (number: bigint) => void;
  /**
   * Asked before a dismissal: true means "not now", the agent dismisses
   * that message itself once its turn is over (the message being
   * answered, whose closing notice still needs it).
   */
  readonly deferDismiss?: (number: bigint) => boolean;
  /**
   * Told of every name path fae itself bound or unbound (store, remove,
   * adoptTool), once the daemon has done it; awaited, so the tool registry
   * can take the change in before the model is asked again.
   */
  readonly onNameChanged?: (path: readonly string[]) => Promise<void>;
  /**
   * What tools/ holds now (pet name → formula id) when the tool registry
   * vouches for it, undefined otherwise; adoptTool then lists nothing.
   */
  readonly installedTools?: () => ReadonlyMap<string, string> | undefined;
  /**
   * What the model is offered now (the tool registry's view), so adoptTool
   * can say which name the adopted tool is called by.
   */
  readonly offeredTools?: () => Promise<DiscoveredTools>;
  /** Told of every successful send (built-in-turn-tools.ts). */
  readonly onSend?: TurnToolHooks['onSend'];
  /** Offer forgetConversation; each turn's scope says whose conversation it forgets. */
  readonly forgets?: boolean;
  /**
   * Top-level directories of fae's that do not exist for the built-ins
   * (fae's stored conversations: one correspondent must not read
   * another's). They work on a view of the powers without them
   * (sealed-powers.ts).
   */
  readonly sealed?: readonly SealedDirectory[];
  /** Where the outcome of a request the model sent is reported. */
  readonly logger?: Logger;
  /** Upper bound of a capability's answer to inspect, in ms. */
  readonly probeTimeoutMs?: number;
}

/**
 * Every built-in in the order the model has always been offered them
 * (a stable order keeps each request's prefix the same): send before
 * reply, listMessages before dismiss, forgetConversation last.
 */
const inOfferedOrder = (
  others: readonly (readonly [string, FaeTool])[],
  turnBound: ReadonlyMap<string, FaeTool>,
): (readonly [string, FaeTool])[] => {
  const before: Readonly<Record<string, string>> = { reply: 'send', dismiss: 'listMessages' };
  const ordered = others.flatMap(([name, tool]) => {
    const first = before[name];
    const extra = first === undefined ? undefined : turnBound.get(first);
    return extra === undefined ? [[name, tool] as const] : [[first, extra] as const, [name, tool] as const];
  });
  const forget = turnBound.get('forgetConversation');
  return forget === undefined ? ordered : [...ordered, ['forgetConversation', forget] as const];
};

/** The built-ins: all of them as offered outside a turn, and a turn's own turn-bound ones. */
export interface BuiltIns {
  readonly tools: ReadonlyMap<string, FaeTool>;
  readonly forTurn: (scope: TurnScope) => ReadonlyMap<string, FaeTool>;
}

const makeBuiltInTool = (
  name: string,
  description: string,
  parameters: Record<string, JsonSchema>,
  required: readonly string[],
  execute: (args: Args) => Promise<unknown>,
): FaeTool => {
  const schema = builtInSchema(name, description, parameters, required);
  return makeExo(`${name}BuiltIn`, FaeToolInterface, {
    schema: () => schema,
    execute: async (args: Args) => harden(await execute(args)),
    help: () => description,
  });
};

const MESSAGE_NUMBER: JsonSchema = {
  type: 'integer',
  description: 'The message number, as shown in "Message #N".',
};
/**
 * The names under tools/, and which of them (if any) already holds the
 * capability attached to message `number` as `edgeName`. Every daemon call
 * of a step goes out at once; an attachment the daemon cannot identify
 * simply matches nothing.
 */
/**
 * The names under tools/ and the one that already holds the attachment, if
 * any: from the registry's view when it has one (one daemon call), else by
 * listing tools/ and identifying each name.
 */
const findInstalled = async (
  powers: Ref<GuestPowers>,
  daemon: DaemonAdapter,
  number: bigint,
  edgeName: string,
  known: ReadonlyMap<string, string> | undefined,
) => {
  const identified = E(powers)
    .identify(...daemon.mailPath(number, edgeName))
    .then(id => (typeof id === 'string' ? (formulaIdOf(id) ?? id) : undefined), () => undefined);
  if (known !== undefined) {
    const attachmentId = await identified;
    const names = [...known.keys()];
    return { names, sameAs: names.find(name => attachmentId !== undefined && known.get(name) === attachmentId) };
  }
  const [attachmentId, names] = await Promise.all([
    identified,
    E(powers).list(TOOLS_DIRECTORY).catch(() => harden([] as string[])),
  ]);
  if (attachmentId === undefined) {
    return { names, sameAs: undefined };
  }
  const ids = await Promise.all(
    names.map(name =>
      E(powers)
        .identify(TOOLS_DIRECTORY, name)
        .then(id => (typeof id === 'string' ? (formulaIdOf(id) ?? id) : undefined), () => undefined),
    ),
  );
  return { names, sameAs: names.find((_, i) => ids[i] === attachmentId) };
};

/** How adoptTool tells the model the name the tool at tools/`petName` is called by. */
const availability = (petName: string, offered: DiscoveredTools | undefined) => {
  if (offered === undefined) return 'It is available now.';
  const found = [...offered.origins].find(([, origin]) => origin.petName === petName);
  if (found === undefined) {
    return 'It is not among your tools, though: its schema is unusable, or another tool under tools/ already has its name.';
  }
  const [name, { ownName }] = found;
  return name === ownName
    ? `It is available now as \`${name}\`.`
    : `It is available now as \`${name}\` (its own name \`${ownName}\` is a built-in's).`;
};

export const makeBuiltInTools = (
  guestPowers: Ref<GuestPowers>,
  {
    daemon: givenDaemon,
    onDismiss,
    onReply,
    onSend,
    forgets,
    deferDismiss,
    onNameChanged,
    installedTools,
    offeredTools,
    logger,
    probeTimeoutMs,
    sealed = [],
  }: BuiltInToolHooks = {},
): BuiltIns => {
  let daemonP: Promise<DaemonAdapter> | undefined;
  const provideDaemon = () => {
    daemonP ??= Promise.resolve(givenDaemon ?? makeDaemonAdapter(guestPowers));
    return daemonP;
  };
  // Every built-in, here and in the files it draws on, gets only this
  // view: what is sealed does not exist there, whatever name a tool uses.
  const powers = makeSealedPowers(guestPowers, { sealed, daemon: provideDaemon });
  const tools: [string, FaeTool][] = [
    [
      'list',
      makeBuiltInTool(
        'list',
        'List the pet names in your directory, or in one of its directories (for example "tools").',
        {
          path: {
            type: 'string',
            description: 'A directory to list, such as "tools". Omit for the top level.',
          },
        },
        [],
        async args =>
          // The view takes either spelling of a special name.
          args.path === undefined || args.path === null || args.path === ''
            ? E(powers).list()
            : E(powers).list(...readNamePath(args, 'path')),
      ),
    ],
    [
      'lookup',
      makeBuiltInTool(
        'lookup',
        'Look up the value stored under a pet name.',
        { petName: { type: 'string', description: 'The pet name (or path such as "tools/greet").' } },
        ['petName'],
        async args => E(powers).lookup((await provideDaemon()).path(readNamePath(args, 'petName'))),
      ),
    ],
    [
      'store',
      makeBuiltInTool(
        'store',
        'Store a JSON value (text, number, list or record) under a pet name, replacing what was there.',
        {
          value: {
            type: ['string', 'number', 'boolean', 'object', 'array', 'null'],
            description: 'The value to store.',
          },
          petName: { type: 'string', description: 'The pet name to store it under.' },
        },
        ['value', 'petName'],
        async args => {
          const path = readNamePath(args, 'petName');
          if (!('value' in args)) {
            throw Error('value is required');
          }
          await E(powers).storeValue(harden(args.value), path);
          await onNameChanged?.(path);
          return `Stored the value as ${JSON.stringify(path.join('/'))}.`;
        },
      ),
    ],
    [
      'remove',
      makeBuiltInTool(
        'remove',
        'Remove a pet name from your directory.',
        { petName: { type: 'string', description: 'The pet name (or path) to remove.' } },
        ['petName'],
        async args => {
          const path = readNamePath(args, 'petName');
          await E(powers).remove(...path);
          await onNameChanged?.(path);
          return `Removed ${JSON.stringify(path.join('/'))}.`;
        },
      ),
    ],
    [
      'adoptTool',
      makeBuiltInTool(
        'adoptTool',
        'Adopt a tool capability attached to a message and install it in tools/. It can be used at once, under the name the result gives.',
        {
          messageNumber: MESSAGE_NUMBER,
          edgeName: { type: 'string', description: 'The label of the attachment in the message (without "@").' },
          toolName: { type: 'string', description: 'The pet name to give it under tools/, such as "greet".' },
        },
        ['messageNumber', 'edgeName', 'toolName'],
        async args => {
          const number = toMessageNumber(args.messageNumber);
          const edgeName = readString(args, 'edgeName').replace(/^@/, '');
          const toolName = readString(args, 'toolName');
          const installed = await findInstalled(powers, await provideDaemon(), number, edgeName, installedTools?.());
          if (installed.sameAs !== undefined) {
            return `@${edgeName} from message #${number} is already installed as tools/${installed.sameAs}; use it under its tool name.`;
          }
          if (installed.names.includes(toolName)) {
            // adopt would silently replace the tool that holds this name.
            throw Error(
              `tools/${toolName} already holds another tool; choose another toolName (taken: ${installed.names.join(', ')})`,
            );
          }
          await E(powers).adopt(number, edgeName, [TOOLS_DIRECTORY, toolName]);
          await onNameChanged?.([TOOLS_DIRECTORY, toolName]);
          const offered = offeredTools === undefined ? undefined : await offeredTools();
          return `Adopted @${edgeName} from message #${number} as tools/${toolName}. ${availability(toolName, offered)}`;
        },
      ),
    ],
    [
      'reply',
      makeBuiltInTool(
        'reply',
        'Reply to a message by its number. This reaches the sender even when you have no pet name for them.',
        {
          messageNumber: MESSAGE_NUMBER,
          strings: STRINGS,
          edgeNames: EDGE_NAMES,
          petNames: PET_NAMES,
        },
        ['messageNumber', 'strings'],
        async args => {
          const number = toMessageNumber(args.messageNumber);
          const strings = readStringArray(args, 'strings');
          const edgeNames = readStringArray(args, 'edgeNames');
          assertSaysSomething('reply', strings, edgeNames);
          await E(powers).reply(number, strings, edgeNames, readStringArray(args, 'petNames'));
          onReply?.(number);
          return `Replied to message #${number}.`;
        },
      ),
    ],
    [
      'dismiss',
      makeBuiltInTool(
        'dismiss',
        'Dismiss a message you have handled, removing it from your inbox.',
        { messageNumber: MESSAGE_NUMBER },
        ['messageNumber'],
        async args => {
          const number = toMessageNumber(args.messageNumber);
          if (deferDismiss?.(number)) {
            return `Message #${number} will be dismissed when you finish this turn.`;
          }
          await E(powers).dismiss(number);
          onDismiss?.(number);
          return `Dismissed message #${number}.`;
        },
      ),
    ],
  ];
  // has, move, copy, makeDirectory, identify; adopt, request, resolve,
  // reject (answering a request counts as a reply); inspect, help.
  const all: (readonly [string, FaeTool])[] = [
    ...tools,
    ...makeDirectoryTools(powers),
    ...makeMailTools(powers, { onAnswer: onReply, logger, daemon: provideDaemon }),
    ...makeInspectionTools(powers, { timeoutMs: probeTimeoutMs }),
  ];
  const turnTools = makeTurnTools(powers, provideDaemon, { onSend, forgets });
  const notifying = (entries: Iterable<readonly [string, FaeTool]>) =>
    new Map([...entries].map(([name, tool]) => [name, withNameChangeNotice(name, tool, onNameChanged)] as const));
  return harden({
    // Outside any turn: no message is being handled, all mail is visible.
    tools: notifying(inOfferedOrder(all, turnTools.forTurn(harden({ visibleMessage: () => true })))),
    forTurn: (scope: TurnScope) => turnTools.forTurn(scope),
  });
};
harden(makeBuiltInTools);

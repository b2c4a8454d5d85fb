// The first built-ins, upstream fae's own: fae's petname directory (list,
// lookup, store, remove), answering (reply, dismiss) and adoptTool, which
// installs a mailed tool capability under tools/. Names and parameters
// keep upstream's; `reply` is new (answer by message number, since a
// sender may have no pet name in fae's directory).
import { E } from '@endo/far';
import { makeExo } from '@endo/exo';
import { FaeToolInterface } from '../../tool-kit/fae-tool-interface.js';
import type { Ref } from '../../daemon/endo-types.js';
import type { ToolPowers } from './sealed-powers.js';
import { type DiscoveredTools, type FaeTool, TOOLS_DIRECTORY } from '../discovered-tools.js';
import { formulaIdOf } from '../../daemon/dialect.js';
import { callNear } from '../../daemon/near-call.js';
import type { JsonSchema } from '../../../providers/types.js';
import { toMessageNumber } from '../tool-arguments.js';
import { readNamePath, readString, readStringArray } from './built-in-arguments.js';
import type { DaemonAdapter } from '../../daemon/adapter.js';
import { assertSaysSomething } from './message-content.js';
import { EDGE_NAMES, PET_NAMES, type PowersIn, STRINGS, builtInSchema, withOwnExecute } from './built-in-tool.js';
import { OUTSIDE_TURNS, type TurnScope } from './turn-scope.js';

type Args = Readonly<Record<string, unknown>>;

/** What the first built-ins report and ask. */
export interface FirstToolHooks {
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
}

const makeBuiltInTool = (
  name: string,
  description: string,
  parameters: Record<string, JsonSchema>,
  required: readonly string[],
  execute: (args: Args, scope: TurnScope) => Promise<unknown>,
): FaeTool => {
  const schema = builtInSchema(name, description, parameters, required);
  const run = async (args: Args, scope: TurnScope = OUTSIDE_TURNS) => harden(await execute(args, scope));
  const tool = makeExo(`${name}BuiltIn`, FaeToolInterface, {
    schema: () => schema,
    // Reached through E() (never by fae, which goes round the guard): outside any turn.
    execute: (args: Args) => run(args),
    help: () => description,
  });
  return withOwnExecute(tool, run);
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
  powers: Ref<ToolPowers>,
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
  const all = [...offered.origins].filter(([, origin]) => origin.petName === petName);
  const methods = all.filter(([, origin]) => origin.method !== undefined).map(([name]) => `\`${name}\``);
  if (methods.length > 0) {
    // Not a FaeTool: each method of its guard is a tool (capabilities/).
    return `It is not a tool made for you: each of its methods is a tool now, ${methods.join(', ')}.`;
  }
  const found = all[0];
  if (found === undefined) {
    return 'It is not among your tools, though: its schema is unusable, or another tool under tools/ already has its name.';
  }
  const [name, { ownName }] = found;
  return name === ownName
    ? `It is available now as \`${name}\`.`
    : `It is available now as \`${name}\` (its own name \`${ownName}\` is a built-in's).`;
};

/** list, lookup, store and remove, over the view of fae's powers made for each turn (sealed-powers.ts). */
const makePetNameTools = (
  powersIn: PowersIn,
  provideDaemon: () => Promise<DaemonAdapter>,
  { onNameChanged }: FirstToolHooks,
): (readonly [string, FaeTool])[] => {
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
        async (args, scope) =>
          // The view takes either spelling of a special name; it is fae's own, called at once (near-call.ts).
          callNear(powersIn(scope), 'list', args.path === undefined || args.path === null || args.path === '' ? [] : readNamePath(args, 'path')),
      ),
    ],
    [
      'lookup',
      makeBuiltInTool(
        'lookup',
        'Look up the value stored under a pet name.',
        { petName: { type: 'string', description: 'The pet name (or path such as "tools/greet").' } },
        ['petName'],
        async (args, scope) => E(powersIn(scope)).lookup((await provideDaemon()).path(readNamePath(args, 'petName'))),
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
        async (args, scope) => {
          const path = readNamePath(args, 'petName');
          if (!('value' in args)) {
            throw Error('value is required');
          }
          await E(powersIn(scope)).storeValue(harden(args.value), path);
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
        async (args, scope) => {
          const path = readNamePath(args, 'petName');
          await E(powersIn(scope)).remove(...path);
          await onNameChanged?.(path);
          return `Removed ${JSON.stringify(path.join('/'))}.`;
        },
      ),
    ],
  ];
  return tools;
};

/** adoptTool, reply and dismiss, over the view of fae's powers made for each turn (sealed-powers.ts). */
const makeAnswerTools = (
  powersIn: PowersIn,
  provideDaemon: () => Promise<DaemonAdapter>,
  { onReply, onDismiss, deferDismiss, onNameChanged, installedTools, offeredTools }: FirstToolHooks,
): (readonly [string, FaeTool])[] => {
  const tools: [string, FaeTool][] = [
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
        async (args, scope) => {
          const number = toMessageNumber(args.messageNumber);
          const edgeName = readString(args, 'edgeName').replace(/^@/, '');
          const toolName = readString(args, 'toolName');
          const installed = await findInstalled(powersIn(scope), await provideDaemon(), number, edgeName, installedTools?.());
          if (installed.sameAs !== undefined) {
            return `@${edgeName} from message #${number} is already installed as tools/${installed.sameAs}; use it under its tool name.`;
          }
          if (installed.names.includes(toolName)) {
            // adopt would silently replace the tool that holds this name.
            throw Error(
              `tools/${toolName} already holds another tool; choose another toolName (taken: ${installed.names.join(', ')})`,
            );
          }
          await E(powersIn(scope)).adopt(number, edgeName, [TOOLS_DIRECTORY, toolName]);
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
        async (args, scope) => {
          const number = toMessageNumber(args.messageNumber);
          const strings = readStringArray(args, 'strings');
          const edgeNames = readStringArray(args, 'edgeNames');
          assertSaysSomething('reply', strings, edgeNames);
          await E(powersIn(scope)).reply(number, strings, edgeNames, readStringArray(args, 'petNames'));
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
        async (args, scope) => {
          const number = toMessageNumber(args.messageNumber);
          if (deferDismiss?.(number)) {
            return `Message #${number} will be dismissed when you finish this turn.`;
          }
          await E(powersIn(scope)).dismiss(number);
          onDismiss?.(number);
          return `Dismissed message #${number}.`;
        },
      ),
    ],
  ];
  return tools;
};

/** The first built-ins over the view of fae's powers made for each turn (sealed-powers.ts), in upstream's order. */
export const makeFirstTools = (
  powersIn: PowersIn,
  provideDaemon: () => Promise<DaemonAdapter>,
  hooks: FirstToolHooks,
): (readonly [string, FaeTool])[] => [
  ...makePetNameTools(powersIn, provideDaemon, hooks),
  ...makeAnswerTools(powersIn, provideDaemon, hooks),
];
harden(makeFirstTools);

// src/toolbox/built-ins/: the tools fae itself gives the model, over a sealed
// view of its powers, and their argument readers.
// Imports: the layers below src/toolbox, and the rest of src/toolbox.
//
// fae's built-in tools, all made here, each call working on the view of
// fae's powers made for its turn's principal (sealed-powers.ts): upstream fae's first ones (list, lookup,
// store, remove, adoptTool, reply, dismiss; built-in-first-tools.ts), the
// ones bound to the turn that calls them (send, listMessages,
// forgetConversation; built-in-turn-tools.ts), and lal's directory, mail
// and inspection tools (built-in-{directory,mail,inspection}-tools.ts).
import type { GuestPowers, Ref } from '../../daemon/endo-types.js';
import type { FaeTool } from '../discovered-tools.js';
import type { DaemonAdapter } from '../../daemon/adapter.js';
import { makeDaemonAdapter } from '../../daemon/adapter.js';
import type { Logger } from '../../logging/log.js';
import { makeDirectoryTools } from './built-in-directory-tools.js';
import { withNameChangeNotice } from './name-change-notice.js';
import { makeMailTools } from './built-in-mail-tools.js';
import { makeInspectionTools } from './built-in-inspection-tools.js';
import { makeDirectoryIn } from './turn-directory.js';
import type { DirectoryIn } from '../capabilities/method-tool.js';
import { makeSealedPowers, type HiddenMail, type NameNotes, type SealedDirectory, type ToolPowers } from './sealed-powers.js';
import type { PowersIn } from './built-in-tool.js';
import type { TurnScope } from './turn-scope.js';
import { makeTurnTools, type TurnToolHooks } from './built-in-turn-tools.js';
import { makeFirstTools, type FirstToolHooks } from './built-in-first-tools.js';
import { makeEvaluateTool } from './built-in-evaluate-tool.js';

/** The first built-ins' hooks (built-in-first-tools.ts), and these. */
export interface BuiltInToolHooks extends FirstToolHooks {
  /** The daemon adapter fae made at start; made on first use otherwise. */
  readonly daemon?: Promise<DaemonAdapter> | DaemonAdapter;
  /** Told of every successful send (built-in-turn-tools.ts). */
  readonly onSend?: TurnToolHooks['onSend'];
  /** Offer forgetConversation; each turn's scope says whose conversation it forgets. */
  readonly forgets?: boolean;
  /** Offer evaluate (FAE_EVALUATE=review), which runs only once the host has reviewed the code. */
  readonly evaluates?: boolean;
  /**
   * Top-level directories of fae's that do not exist for the built-ins
   * (fae's stored conversations: one correspondent must not read
   * another's). They work on a view of the powers without them
   * (sealed-powers.ts).
   */
  readonly sealed?: readonly SealedDirectory[];
  /** Messages and values no built-in may see (the host's answers to fae's forms). */
  readonly hidden?: HiddenMail;
  /** Where the names the model binds and unbinds are noted (sealed-powers.ts). */
  readonly names?: NameNotes;
  /** How a message's sender is named to the model (listMessages): by names the model did not write. */
  readonly nameSender?: (from: string) => Promise<string>;
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

/** The groups of built-ins a host may offer (FAE_BUILTINS). */
export const BUILT_IN_GROUP_NAMES = harden(['directory', 'mail', 'inspection', 'conversations'] as const);
export type BuiltInGroup = (typeof BUILT_IN_GROUP_NAMES)[number];

/** Which built-ins each group holds, and what /tools calls it. */
export const BUILT_IN_GROUPS: readonly { readonly group: BuiltInGroup; readonly label: string; readonly names: readonly string[] }[] =
  harden([
    { group: 'directory', label: 'my directory', names: ['list', 'lookup', 'store', 'remove', 'has', 'move', 'copy', 'makeDirectory', 'identify'] },
    {
      group: 'mail',
      label: 'mail and the tools it brings',
      names: ['send', 'reply', 'listMessages', 'dismiss', 'adopt', 'request', 'resolve', 'reject', 'adoptTool'],
    },
    { group: 'inspection', label: 'inspecting capabilities', names: ['inspect', 'help'] },
    { group: 'conversations', label: 'our conversation', names: ['forgetConversation'] },
  ]);

/** The names of the built-ins `groups` hold. */
export const builtInsOf = (groups: readonly BuiltInGroup[]): ReadonlySet<string> =>
  new Set(BUILT_IN_GROUPS.filter(({ group }) => groups.includes(group)).flatMap(({ names }) => names));
harden(builtInsOf);

/** The built-ins, each called with the scope of the turn that calls it (executeTool). */
export interface BuiltIns {
  readonly tools: ReadonlyMap<string, FaeTool>;
  /**
   * Whether a tool is one whose every call the host reviews, whatever the
   * policy says (evaluate): told by identity, not by name.
   */
  readonly reviewed: (tool: FaeTool | undefined) => boolean;
  /** What a capability's method tools reach in fae's directory, with each turn's authority. */
  readonly directoryIn: DirectoryIn;
}

export const makeBuiltInTools = (
  guestPowers: Ref<GuestPowers>,
  {
    daemon: givenDaemon,
    onDismiss,
    onReply,
    onSend,
    forgets,
    evaluates = false,
    deferDismiss,
    onNameChanged,
    installedTools,
    offeredTools,
    logger,
    probeTimeoutMs,
    sealed = [],
    hidden,
    names,
    nameSender,
  }: BuiltInToolHooks = {},
): BuiltIns => {
  let daemonP: Promise<DaemonAdapter> | undefined;
  const provideDaemon = () => {
    daemonP ??= Promise.resolve(givenDaemon ?? makeDaemonAdapter(guestPowers));
    return daemonP;
  };
  // Every built-in, here and in the files it draws on, works on the view
  // made for the turn that calls it: its principal's mail, nothing sealed,
  // nothing handed out unasked (sealed-powers.ts). Made on a turn's first
  // call, once per turn.
  const views = new WeakMap<TurnScope, Ref<ToolPowers>>();
  const powersIn: PowersIn = scope => {
    let view = views.get(scope);
    if (view === undefined) {
      view = makeSealedPowers(guestPowers, { sealed, hidden, names, daemon: provideDaemon, principal: scope.principal });
      views.set(scope, view);
    }
    return view;
  };
  const tools = makeFirstTools(powersIn, provideDaemon, {
    onReply,
    onDismiss,
    deferDismiss,
    onNameChanged,
    installedTools,
    offeredTools,
  });
  // has, move, copy, makeDirectory, identify; adopt, request, resolve,
  // reject (answering a request counts as a reply); inspect, help.
  const all: (readonly [string, FaeTool])[] = [
    ...tools,
    ...makeDirectoryTools(powersIn),
    ...makeMailTools(powersIn, { onAnswer: onReply, logger, daemon: provideDaemon }),
    ...makeInspectionTools(powersIn, { timeoutMs: probeTimeoutMs }),
    ...(evaluates ? [makeEvaluateTool(powersIn)] : []),
  ];
  const turnTools = makeTurnTools(powersIn, provideDaemon, { onSend, forgets, nameSender });
  const notifying = (entries: Iterable<readonly [string, FaeTool]>) =>
    new Map([...entries].map(([name, tool]) => [name, withNameChangeNotice(name, tool, onNameChanged)] as const));
  const offered = notifying(inOfferedOrder(all, turnTools));
  const evaluate = offered.get('evaluate');
  return harden({
    tools: offered,
    reviewed: (tool: FaeTool | undefined) => evaluate !== undefined && tool === evaluate,
    directoryIn: makeDirectoryIn(powersIn, provideDaemon),
  });
};
harden(makeBuiltInTools);

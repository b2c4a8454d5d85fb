// src/agent/: the agent itself, started and wired here from its rooms turn/,
// host/, authority/ and limits/, with config.ts its settings. It imports
// src/toolbox and the layers below (scripts/check-imports.mjs).
//
// The fae agent: startup, then one turn per incoming message, for as long
// as the daemon keeps it alive. agent.ts wires the provider in; tests can
// hand in a scripted one.
import { E } from '@endo/far';
import { makeExo } from '@endo/exo';
import { M } from '@endo/patterns';
import { makePromiseKit } from '@endo/promise-kit';
import { Fail } from '@endo/errors';
import type { Provider } from '../../providers/types.js';
import type { ProviderLog } from '../../providers/transport.js';
import type { CapletContext, GuestPowers, MessageRecord, Ref } from '../daemon/endo-types.js';
import type { DaemonAdapter, InboxMessage } from '../daemon/adapter.js';
import { makeDaemonAdapter } from '../daemon/adapter.js';
import { formulaIdOf } from '../daemon/dialect.js';
import { DEFAULT_FAE_NAME, readFaeConfig, type FaeConfig } from './config.js';
import { makeLearningRedactor, type LearningRedactor, type Redact } from '../logging/redact.js';
import { redactOutgoingMail } from '../daemon/redacted-mail.js';
import { logPrefixFor, makeLogger, type Logger } from '../logging/log.js';
import { builtInsOf, makeBuiltInTools, type BuiltIns } from '../toolbox/built-ins/built-in-tools.js';
import { makeToolRegistry, type ToolRegistry } from '../toolbox/registry/tool-registry.js';
import { provideToolsDirectory } from '../toolbox/registry/tools-directory.js';
import { moveIntroducedTools } from '../toolbox/registry/introduced-tools.js';
import { systemPromptWith } from './turn/system-prompt.js';
import { makeConversations, type Conversations } from '../conversations/conversations.js';
import { followInbox } from './turn/inbox.js';
import { makeMessageTurns } from './turn/message-turn.js';
import type { Tally } from './turn/message-turn-options.js';
import { makeFaeEvents, type FaeEvents } from './fae-events.js';
import { makeTurnStates, type TurnStates } from './turn/turn-states.js';
import { QUIET_MS, makeProgressReplies } from './turn/progress-reply.js';
import { makeEditableAnswers, type EditableAnswers } from './turn/editable-answers.js';
import { makeOwnCopyWaits, type OwnCopyWaits } from './turn/own-copy-waits.js';
import { readAtStart, staleReplyText, type AtStart } from './turn/answered-at-start.js';
import { whenCancelled, type Cancellation } from './turn/cancellation.js';
import { FAE_HELP, helpFor } from './host/fae-help.js';
import { bestEffort } from './best-effort.js';
import { asStrings, makeDeliver } from './turn/deliver.js';
import { makeHostReports } from './host/host-reports.js';
import type { ApprovalsView, StatusView } from './host/commands.js';
import { watchOwnNames, type OwnNamesWatch } from '../daemon/own-names.js';
import { describeWithHostNames, makeSenderNames, trustedSenderNames, type SenderNames } from './authority/sender-names.js';
import { makeHostNames, type HostNames } from './authority/host-names.js';
import { makeModelNames, type ModelNames } from './authority/model-names.js';
import { makeAdoptedFrom, type AdoptedFrom } from './authority/adopted-from.js';
import { makeContextWindow, type ContextWindow } from './limits/context-window.js';
import { makeUsageAccounts, type UsageAccounts } from './limits/usage-accounts.js';
import { followBudgetValue, makeBudget, type Budget } from './limits/budget.js';
import { SEALED_NAMES } from './authority/sealed-names.js';
import { makePace, type Pace } from './limits/pace.js';
import { makeProviderSwitch, type ProviderSwitch } from './host/provider-switch.js';
import { makeHostForms, type HostForms } from './host/host-forms.js';
import { makeLlmSettings, type LlmSettings } from './host/llm-settings.js';
import type { ApprovalChannel } from './authority/approval-channel.js';
import type { Approvals } from './authority/approvals.js';
import { makeFaeApprovals, type FaeApprovals, type Gives } from './authority/fae-approvals.js';
import { REPORTED_ALREADY, inBackground } from '../background.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface StartFaeOptions {
  readonly env: Env;
  /** The LLM (tests hand in a scripted one); otherwise makeProvider makes it from env. */
  readonly provider?: Provider;
  /**
   * A provider for settings: those of env at start (unless env names no
   * LLM: fae then asks its host with a form, where the daemon has forms),
   * and the host's answers to the settings form. Throws for settings it
   * cannot use. Without it, fae keeps `provider` for good.
   */
  readonly makeProvider?: (env: Env, log: ProviderLog) => Provider;
  /** Where log lines go; console.log by default. */
  readonly write?: (line: string) => void;
  /**
   * Who a message is from, selecting its conversation: the sender's id by
   * default (a formula id on the Feb daemon). A daemon adapter may hand in
   * a normalized raw id for locators.
   */
  readonly correspondentOf?: (message: MessageRecord) => string;
}

/** The first words of fae's ready message: scripts and tests look for exactly these. */
export const READY_TEXT = 'Fae agent ready.';

/** What fae says to its host on its first start: ready, then how to talk to it. */
export const READY_MESSAGE = `${READY_TEXT} Write to me here; mail me a tool as @name and I can adopt it and use it at once. /help lists what I answer myself.`;

/**
 * The ready message of the fae named `name` (FAE_NAME): a fae of another
 * name than `fae` says which it is, since its host may keep several.
 */
export const readyMessageFor = (name: string) =>
  name === DEFAULT_FAE_NAME ? READY_MESSAGE : READY_MESSAGE.replace(`${READY_TEXT} `, `${READY_TEXT} I am ${name}. `);
harden(readyMessageFor);

/** Said after the ready message by a fae set up without an LLM. */
export const SETTINGS_FIRST =
  'Before I can answer with my language model I need its settings: fill in the form I am sending you (the token field is secret).';

const FaeInterface = M.interface('Fae', {
  help: M.call().optional(M.string()).returns(M.string()),
  status: M.call().returns(M.record()),
  whenStarted: M.call().returns(M.promise()),
  followEvents: M.call().returns(M.remotable('FaeEvents')),
  revokeGrant: M.call(M.number()).returns(M.promise()),
});

type State = 'starting' | 'running' | 'stopped' | 'failed';

/** Dismissals remembered, so that a second one for the same message is not asked of the daemon. */
const DISMISSALS_KEPT = 256;

/**
 * Dismissals fae makes for itself: a refusal is logged, never thrown.
 * Resolves whether the message is gone. One message may be let go by two
 * paths (an answer's copy once it is no longer open to edits, and once its
 * conversation is stored): the daemon is asked once.
 */
const makeDismiss = (powers: Ref<GuestPowers>, logger: Logger) => {
  const asked = new Map<bigint, Promise<boolean>>();
  return (number: bigint) => {
    const earlier = asked.get(number);
    if (earlier !== undefined) return earlier;
    const gone = E(powers)
      .dismiss(number)
      .then(
        () => true,
        error => {
          logger.warn('dismiss-failed', { message: number, error });
          // Asked again next time: the daemon may have been busy.
          asked.delete(number);
          return false;
        },
      );
    asked.set(number, gone);
    if (asked.size > DISMISSALS_KEPT) asked.delete(asked.keys().next().value as bigint);
    return gone;
  };
};

/** What fae's startup steps work on. */
interface StartupParts {
  readonly powers: Ref<GuestPowers>;
  readonly logger: Logger;
  readonly config: FaeConfig;
  readonly conversations: Conversations;
  readonly registry: ToolRegistry;
  readonly modelNames: ModelNames;
  readonly adoptedFrom: AdoptedFrom;
  readonly hostNames: HostNames;
}

/**
 * Each step but following the mail is best effort: a refusal is logged,
 * and fae goes on to serve its mail. One after the other: on the February
 * daemon any guest call that ends runs a collection pass, which takes a
 * directory another call has formulated but not yet named. Resolves
 * whether this is fae's first start (it then says it is ready).
 */
const prepare = async ({ powers, logger, config, conversations, registry, modelNames, adoptedFrom, hostNames }: StartupParts) => {
  const firstStart = await bestEffort(logger, 'tools-directory', () => provideToolsDirectory(powers, logger), false);
  await bestEffort(logger, 'conversations', () => conversations.start(), undefined);
  // Before any turn, so that no name is trusted that the model wrote, and no correspondent's tool offered to others.
  await bestEffort(logger, 'model-names', () => modelNames.start(), undefined);
  await bestEffort(logger, 'adopted-from', () => adoptedFrom.start(), undefined);
  await bestEffort(logger, 'correspondent-names', () => hostNames.start(), undefined);
  await bestEffort(
    logger,
    'introduced-tools',
    () => moveIntroducedTools(powers, { probeTimeoutMs: config.probeTimeoutMs, logger }),
    harden([]),
  );
  // After tools/ exists and the introduced tools are in it, so the first
  // message finds them without listing.
  await registry.start();
  return firstStart;
};

/** What fae is made of, for the pieces of its run below. */
interface FaeParts {
  readonly config: FaeConfig;
  readonly logger: Logger;
  readonly redact: Redact;
  readonly provider: ProviderSwitch;
  readonly cancelled: Cancellation;
  readonly correspondentOf: (message: MessageRecord) => string;
  readonly tally: Tally;
  readonly events: FaeEvents;
  readonly states: TurnStates;
  readonly dismiss: (number: bigint) => Promise<boolean>;
  readonly editable: EditableAnswers;
  readonly copies: OwnCopyWaits;
  readonly conversations: Conversations;
  readonly builtIns: BuiltIns;
  readonly registry: ToolRegistry;
  readonly senderNames: SenderNames;
  /** How a sender is named to the model and the host: the host's own name first, then fae's trusted names. */
  readonly describeSender: (from: string, correspondent: string) => Promise<string>;
  /** The names the host gave fae for its correspondents (/name). */
  readonly hostNames: HostNames;
  /** Who gave fae each capability it kept from its mail: whose tools a turn may use. */
  readonly adoptedFrom: AdoptedFrom;
  readonly daemonAdapter: Promise<DaemonAdapter>;
  readonly status: () => StatusView;
  readonly usage: UsageAccounts;
  readonly budget: Budget;
  readonly pace: Pace;
  /** How many tokens one request may hold: FAE_CONTEXT_TOKENS within the server's word (context-window.ts). */
  readonly contextWindow: ContextWindow;
  readonly settings: LlmSettings;
  /** /settings: false where fae's settings cannot change while it runs. */
  readonly askSettings: () => boolean;
  /** /approvals and /revoke N. */
  readonly approvalsView: () => ApprovalsView;
  readonly revokeGrant: (number: number) => Promise<boolean>;
}

/** The conversations, told of what summaries cost and of own copies to dismiss. */
const conversationsOf = (
  powers: Ref<GuestPowers>,
  { config, redact, logger, provider, tally, editable, dismiss, usage, contextWindow }: Pick<
    FaeParts,
    'config' | 'redact' | 'logger' | 'provider' | 'tally' | 'editable' | 'dismiss' | 'usage' | 'contextWindow'
  >,
) =>
  makeConversations(powers, {
    provider,
    // What one request may carry is read as each is made: the server's word may narrow it.
    limits: harden({
      get contextTokens() {
        return contextWindow.tokens();
      },
      maxMessages: config.maxMessages,
      maxTranscript: config.maxTranscript,
      heldConversations: config.heldConversations,
    }),
    systemPrompt: systemPromptWith(config.builtIns, config.hostPrompt, { evaluate: config.evaluate === 'review' }),
    redact,
    logger,
    onUsage: (spent, correspondent) => {
      tally.inputTokens += spent?.inputTokens ?? 0;
      tally.outputTokens += spent?.outputTokens ?? 0;
      usage.summary(spent, correspondent);
    },
    // The copy of an answer still open to edits stays until it is not (editable-answers.ts).
    dismissOwnCopies: async numbers => {
      await Promise.all(numbers.filter(number => !editable.holdsCopy(number)).map(dismiss));
    },
  });

/**
 * On August, finishes the progress replies a restart left unfinished whose
 * messages do not come again, saying so, all at once and in the
 * background (elsewhere a reply cannot be edited).
 */
const finishStaleReplies = (daemon: DaemonAdapter, { stale }: AtStart, logger: Logger) => {
  if (!daemon.canEdit || stale.length === 0) return;
  inBackground(
    Promise.all(
      stale.map(reply =>
        daemon.edit(reply.copy, [staleReplyText(reply)], true).then(
          () => logger.event('stale-reply-finished', { copy: reply.copy }),
          error => logger.warn('stale-reply-not-finished', { copy: reply.copy, error }),
        ),
      ),
    ),
    REPORTED_ALREADY,
  );
};

/** The turns of fae's messages, once the daemon is known (progress replies need it). */
const turnsOn = (
  parts: FaeParts,
  daemon: DaemonAdapter,
  atStart: AtStart,
  { approvals, gives, leftReplyDone }: { approvals: Approvals; gives: Gives; leftReplyDone: (copy: bigint) => void },
) => {
  const { config, logger, redact, conversations, registry, events, copies, editable, correspondentOf } = parts;
  return makeMessageTurns({
    ...parts,
    provider: conversations.meter(parts.provider),
    settingUp: () => !parts.provider.isSet(),
    hostWords: parts.settings.hostWords,
    offered: () => registry.current(),
    deliver: makeDeliver(daemon, logger, redact, parts.senderNames),
    describeSender: parts.describeSender,
    isOwn: message => formulaIdOf(message.from) === daemon.selfId,
    progress: makeProgressReplies(daemon, {
      afterMs: config.progressAfterMs,
      logger,
      copies,
      onWaiting: number => events.emit({ type: 'progress', message: number, text: 'still waiting for the model' }),
      // Said well before the model call is given up on as a stall.
      quietMs: Math.min(QUIET_MS, Math.floor(config.stallMs / 3)),
    }),
    // Only where fae can edit its answer can an edit of the question be answered in place.
    editable: daemon.canEdit && config.editableTurns > 0 ? editable : undefined,
    threadOf: message => conversations.laneOf(message, correspondentOf(message)),
    atStart,
    leftReplyDone,
    isFromHost: message => daemon.isFromHost(message),
    reports: makeHostReports({ send: text => daemon.send(daemon.names.host, asStrings(redact(text))), logger }),
    approvals,
    gives,
    mayUse: parts.adoptedFrom.mayUse,
    nameCorrespondent: parts.hostNames.name,
    contextWindow: parts.contextWindow,
    serverWindow: () => parts.provider.contextWindow?.() ?? Promise.resolve(undefined),
  });
};

/**
 * Serves fae's mail until it is cancelled or the mail ends; answers to
 * fae's forms go to `forms`, its own copies of approval requests to `channel`.
 */
const followMail = async (
  parts: FaeParts,
  daemon: DaemonAdapter,
  { forms, channel, approvals, gives }: { forms: HostForms; channel: ApprovalChannel; approvals: Approvals; gives: Gives },
) => {
  const { logger, conversations, config, editable, correspondentOf, cancelled } = parts;
  // Read before the replay is followed, so that it is what was there at the restart.
  const atStart = await readAtStart(daemon).catch(error => {
    logger.warn('inbox-not-listed', { error });
    return harden({ answered: new Map(), unfinished: new Map(), stale: [] });
  });
  finishStaleReplies(daemon, atStart, logger);
  // The own copies of replies a restart left unfinished wait for the turn
  // that takes each over: placed now, with no turn open for its thread, a
  // copy would be dismissed before its reply is edited into the answer.
  const leftCopies = new Set([...atStart.unfinished.values()].map(left => left.copy));
  const placeLater = new Map<bigint, () => void>();
  const leftReplyDone = (copy: bigint) => {
    leftCopies.delete(copy);
    placeLater.get(copy)?.();
    placeLater.delete(copy);
  };
  const turns = turnsOn(parts, daemon, atStart, { approvals, gives, leftReplyDone });
  await followInbox(daemon, {
    cancelled,
    onMessage: turns.handleMessage,
    intercept: forms.take,
    // An own copy belongs to the conversation with its recipient.
    onOwnMessage: message => {
      if (message.type === 'form') forms.noteOwnForm(message);
      // An approval request is no conversation's: nothing else is told of it.
      if (channel.noteOwn(message) || message.type === 'form') return;
      turns.noteOwnCopy(message);
      const place = () =>
        inBackground(conversations.noteOwnMessage(message, correspondentOf({ ...message, from: message.to })), error =>
          logger.warn('own-copy-not-noted', { message: message.number, error }),
        );
      if (leftCopies.has(message.number)) placeLater.set(message.number, place);
      else place();
    },
    onIgnoredEdit: message => logger.event('edit-ignored', { message: message.number }),
    onSetAside: message => logger.warn('unfinished-message-set-aside', { message: message.number }),
    // One conversation's turns one at a time; different ones at once.
    laneOf: (message: InboxMessage) => conversations.laneOf(message, correspondentOf(message)),
    concurrency: config.concurrentTurns,
    isEditable: number => editable.has(number),
    // A failure is the failing turn's or callback's alone (inbox.ts): logged, and fae reads on.
    onFailure: (where, error, message) => logger.warn('inbox-failure', { where, message: message?.number, error }),
  });
};

/** The built-ins and the registry of what the model is offered (tools/ followed). */
const toolsOf = (
  powers: Ref<GuestPowers>,
  { config, logger, states, daemonAdapter }: Pick<FaeParts, 'config' | 'logger' | 'states' | 'daemonAdapter'>,
  {
    ownNames,
    modelNames,
    adoptedFrom,
    formAnswers,
    nameSender,
  }: {
    readonly ownNames: OwnNamesWatch;
    readonly modelNames: ModelNames;
    readonly adoptedFrom: AdoptedFrom;
    readonly formAnswers: Pick<HostForms, 'hidesMessage' | 'hidesId'>;
    readonly nameSender: (from: string) => Promise<string>;
  },
) => {
  // What the model did about a message, told by the built-in tools, is
  // kept on that message's own turn.
  const builtIns = makeBuiltInTools(powers, {
    daemon: daemonAdapter,
    ...states.builtInHooks,
    onNameChanged: path => registry.noteChanged(path),
    installedTools: () => registry.installed(),
    offeredTools: () => registry.current(),
    logger,
    probeTimeoutMs: config.probeTimeoutMs,
    // The built-ins work on a view of fae's powers without the stores.
    sealed: SEALED_NAMES,
    // Nor the host's answers to fae's forms (a token, a decision).
    hidden: formAnswers,
    // Every name the model binds is noted: it names no one (model-names.ts); and who gave what it keeps.
    names: harden({ ...modelNames, keeping: adoptedFrom.keeping }),
    nameSender,
    forgets: true,
    evaluates: config.evaluate === 'review',
  });
  // Only the groups the host chose (FAE_BUILTINS) are offered; a turn's own
  // built-ins replace only those offered (withTurnTools).
  const offered = new Set([...builtInsOf(config.builtIns), ...(config.evaluate === 'review' ? ['evaluate'] : [])]);
  const tools = new Map([...builtIns.tools].filter(([name]) => offered.has(name)));
  // Follows tools/ (or lists it each step with FAE_TOOL_DISCOVERY=list).
  const registry = makeToolRegistry(powers, tools, {
    logger,
    timeoutMs: config.probeTimeoutMs,
    discovery: config.toolDiscovery,
    ownNames,
    directoryIn: builtIns.directoryIn,
  });
  return { builtIns, registry };
};

/**
 * The LLM fae talks to, and its settings: the provider handed in, or one
 * made of env's settings (none when env names no LLM: the host is then
 * asked with a form), changeable while fae runs where it can make one.
 */
const llmOf = (
  powers: Ref<GuestPowers>,
  { name, env, logger, redactor, tellHost }: { name: string; env: Env; logger: Logger; redactor: LearningRedactor; tellHost: (text: string) => Promise<void> },
  { initialProvider, makeProvider }: { initialProvider?: Provider; makeProvider?: StartFaeOptions['makeProvider'] },
) => {
  // What a provider has to tell (a server that cannot stream) goes to fae's log.
  const providerLog: ProviderLog = (event, fields) => logger.warn(event, fields);
  const namesLlm = [env.LAL_HOST, env.LAL_PROVIDER].some(setting => setting !== undefined && setting.trim() !== '');
  const provider = makeProviderSwitch(
    initialProvider ?? (makeProvider !== undefined && namesLlm ? makeProvider(env, providerLog) : undefined),
  );
  const settings = makeLlmSettings({
    ...{ name, env, powers, logger, providers: provider, learnSecrets: redactor.learn, tellHost },
    makeProvider: settingsEnv =>
      makeProvider === undefined
        ? Fail`this fae was started with one provider; its settings cannot change`
        : makeProvider(settingsEnv, providerLog),
  });
  return { provider, settings, askSettings: () => makeProvider !== undefined && settings.ask() };
};

/** Says fae is ready, on its first start only (a restart is silent), and warns if it cannot tell its own mail. */
const announce = async (
  daemon: DaemonAdapter,
  { config, logger, provider, forms, firstStart }: Pick<FaeParts, 'config' | 'logger' | 'provider'> & { forms: HostForms; firstStart: boolean },
) => {
  if (daemon.selfId === undefined) {
    logger.warn('identify-self-failed', { error: 'the daemon gave no id for fae itself; its own copies cannot be told apart' });
  }
  if (!firstStart) return;
  const ready = provider.isSet() || !forms.available ? readyMessageFor(config.name) : `${readyMessageFor(config.name)} ${SETTINGS_FIRST}`;
  await bestEffort(logger, 'announce-ready', () => daemon.send(daemon.names.host, [ready]), undefined);
};

/**
 * Whose names fae knows, and who gave it what: fae's own top-level names
 * (watched once, for the registry, as tools/ may be replaced, and for the
 * sender names kept between messages), the names its model bound (they
 * name no one: model-names.ts), the givers of what it kept from its mail
 * (adopted-from.ts), the host's names for its correspondents (/name), and
 * the senders' names it trusts, kept while its names stay as they are
 * (sender-names.ts: no daemon call for a sender seen before).
 */
const namesOf = (powers: Ref<GuestPowers>, logger: Logger, daemonAdapter: Promise<DaemonAdapter>) => {
  const ownNames = watchOwnNames(powers, { logger });
  const modelNames = makeModelNames({ powers, logger });
  const adoptedFrom = makeAdoptedFrom({ powers, logger });
  const hostNames = makeHostNames({ powers, logger });
  const senderNames = makeSenderNames(
    trustedSenderNames(async from => (await daemonAdapter).senderNames(from), {
      trusts: modelNames.trusts,
      isHost: async from => (await daemonAdapter).isFromHost({ from }),
    }),
    ownNames,
  );
  return { ownNames, modelNames, adoptedFrom, hostNames, senderNames };
};

/** What status() says: fae's state, its counts, and what its conversations, usage and approvals say of themselves. */
const statusOf = ({
  state,
  tally,
  provider,
  conversations,
  usage,
  approvals,
}: {
  state: () => State;
  tally: Tally;
  provider: ProviderSwitch;
  conversations: Conversations;
  usage: UsageAccounts;
  approvals: Pick<FaeApprovals, 'status'>;
}) => {
  const startedAt = new Date().toISOString();
  return () =>
    harden({
      state: state(),
      startedAt,
      handledMessages: tally.handledMessages,
      inputTokens: tally.inputTokens,
      outputTokens: tally.outputTokens,
      provider: provider.kind,
      model: provider.model,
      llm: provider.isSet() ? 'ready' : 'waiting for the host to answer the settings form',
      lastError: tally.lastError,
      lastErrorAt: tally.lastErrorAt,
      ...conversations.status(),
      usage: usage.status(),
      approvals: approvals.status(),
    });
};

/**
 * fae's run: prepared, its forms made (told to `formsMade`), approvals and
 * settings restored, the host told it is ready, then its mail followed
 * (`running` is told when it starts) until the daemon stops it.
 */
const runFae = async (
  parts: FaeParts,
  { powers, modelNames, approvals, formsMade, running }: {
    powers: Ref<GuestPowers>;
    modelNames: ModelNames;
    approvals: FaeApprovals;
    formsMade: (forms: HostForms) => void;
    running: () => void;
  },
) => {
  const { logger, config, conversations, registry, adoptedFrom, hostNames, settings, dismiss, builtIns, usage, provider } = parts;
  const daemon = await parts.daemonAdapter;
  const firstStart = await prepare({ powers, logger, config, conversations, registry, modelNames, adoptedFrom, hostNames });
  const forms = makeHostForms({ powers, daemon, logger, dismiss, kinds: () => [settings.kind, ...approvals.kinds()] });
  formsMade(forms);
  const describe = parts.describeSender;
  const asking = await approvals.start(daemon, forms, {
    dismiss,
    reviewed: builtIns.reviewed,
    nameRecipient: async to =>
      to.kind === 'directory' ? `the directory ${to.shown}` : to.id === undefined ? to.shown : describe(to.id, to.id),
  });
  // Before any turn: settings the host gave in the form outlive a restart.
  await settings.restore(forms);
  // Read back in the background: turns are counted meanwhile, and added to what was stored.
  usage.start();
  await announce(daemon, { config, logger, provider, forms, firstStart });
  // Without an LLM yet, the host is asked with a form (once, even over restarts).
  inBackground(settings.askIfUnset(), error => logger.warn('settings-form-not-sent', { error }));
  running();
  logger.event('started', { provider: provider.kind, model: provider.model, daemon: daemon.dialect });
  await followMail(parts, daemon, { forms, ...asking });
};

/**
 * What everything else in fae stands on: its settings, its redactor (which
 * learns the secrets of settings the host gives later: llm-settings.ts),
 * its log, its view of its powers (every text it mails, whoever sends it,
 * passes the redactor on the way out), and the daemon adapter, through
 * which everything that differs between daemon generations goes.
 */
const foundationsOf = (guestPowers: Ref<GuestPowers>, env: Env, write: StartFaeOptions['write']) => {
  const config = readFaeConfig(env);
  const redactor = makeLearningRedactor(env);
  const { redact } = redactor;
  const logger = makeLogger({ redact, debug: config.debug, write, prefix: logPrefixFor(config.name) });
  const powers = redactOutgoingMail(guestPowers, redact);
  powers.catch(() => {}); // reported by run(), through the daemon adapter
  const daemonAdapter = makeDaemonAdapter(powers);
  daemonAdapter.catch(() => {}); // reported by run()
  const tellHost = async (text: string) => {
    const daemon = await daemonAdapter;
    await daemon.send(daemon.names.host, asStrings(redact(text)));
  };
  return { config, redactor, redact, logger, tellHost, powers, daemonAdapter };
};

/** The daily token budget (its value read again whenever the host changes it: no call per turn) and the pace of turns. */
const limitsOf = (
  config: FaeConfig,
  { powers, logger, tellHost, ownNames }: { powers: Ref<GuestPowers>; logger: Logger; tellHost: (text: string) => Promise<void>; ownNames: OwnNamesWatch },
) => {
  const budget = makeBudget({ settings: { tokens: config.budgetTokens, host: config.budgetHost }, logger, tellHost });
  const pace = makePace({ settings: { perMinute: config.turnsPerMinute, pauseMs: config.pauseMs }, logger, tellHost });
  followBudgetValue(powers, budget, ownNames);
  return { budget, pace };
};

export const startFae = (
  guestPowers: Ref<GuestPowers>,
  context: Ref<CapletContext>,
  // The sender's raw id: the same for a raw id and for locators of either
  // syntax, with or without hints, so one sender is one correspondent.
  { env, provider: initialProvider, makeProvider, write, correspondentOf = message => formulaIdOf(message.from) ?? message.from }: StartFaeOptions,
) => {
  const { config, redactor, redact, logger, tellHost, powers, daemonAdapter } = foundationsOf(guestPowers, env, write);
  const cancelled = whenCancelled(context);

  let state: State = 'starting';
  // Settles once startup has succeeded or failed.
  const started = makePromiseKit<void>();
  const tally: Tally = { handledMessages: 0, inputTokens: 0, outputTokens: 0, lastError: '', lastErrorAt: '' };
  const states = makeTurnStates();
  const dismiss = makeDismiss(powers, logger);
  const { provider, settings, askSettings } = llmOf(powers, { name: config.name, env, logger, redactor, tellHost }, { initialProvider, makeProvider });
  const editable = makeEditableAnswers({ perThread: config.editableTurns, keepMs: config.editableMs, dismiss });
  // What model calls cost, per correspondent and model, kept across restarts (src/usage/).
  const usage = makeUsageAccounts(powers, { provider, prices: config.prices, logger });
  // One private conversation per correspondent and thread (src/conversations/).
  const contextWindow = makeContextWindow({ configured: config.contextTokens, logger });
  const conversations = conversationsOf(powers, { config, redact, logger, provider, tally, editable, dismiss, usage, contextWindow });
  const { ownNames, modelNames, adoptedFrom, hostNames, senderNames } = namesOf(powers, logger, daemonAdapter);
  // Made once the daemon is known (run below); until then nothing is hidden, as nothing was asked.
  let forms: HostForms | undefined;
  const formAnswers = harden({
    hidesMessage: (number: bigint) => (forms?.hidesMessage(number) ?? false) || approvals.hides(number),
    hidesId: (id: string) => forms?.hidesId(id) ?? false,
  });
  const { builtIns, registry } = toolsOf(
    powers,
    { config, logger, states, daemonAdapter },
    {
      ...{ ownNames, modelNames, adoptedFrom, formAnswers },
      // fae's own messages are the model's own: "you", not a stranger.
      nameSender: async from =>
        (await daemonAdapter).isOwnMessage({ from }) ? 'you' : parts.describeSender(from, formulaIdOf(from) ?? from),
    },
  );
  const { budget, pace } = limitsOf(config, { powers, logger, tellHost, ownNames });
  // What needs the host's approval, its standing grants, and the gate (fae-approvals.ts).
  const approvals = makeFaeApprovals({
    ...{ config, powers, logger, redact, ownNames, tellHost },
    trusts: modelNames.trusts,
    giverOf: adoptedFrom.giverOf,
    namedByHost: hostNames.idOf,
  });
  inBackground(
    cancelled.promise.then(() => {
      registry.stop();
      ownNames.stop();
      conversations.stop();
      usage.stop();
    }),
    error => logger.warn('stop-failed', { error }),
  );
  const status = statusOf({ state: () => state, tally, provider, conversations, usage, approvals });
  const parts: FaeParts = {
    ...{ config, logger, redact, provider, cancelled, correspondentOf, tally, states, dismiss, editable, status },
    ...{ conversations, builtIns, registry, daemonAdapter, usage, budget, pace, settings, adoptedFrom, contextWindow },
    askSettings,
    approvalsView: approvals.status,
    revokeGrant: approvals.revoke,
    events: makeFaeEvents(),
    copies: makeOwnCopyWaits(),
    senderNames,
    describeSender: describeWithHostNames(senderNames, hostNames),
    hostNames,
  };

  const run = async () => {
    await runFae(parts, {
      ...{ powers, modelNames, approvals },
      formsMade: made => {
        forms = made;
      },
      running: () => {
        state = 'running';
        started.resolve();
      },
    });
    state = 'stopped';
    logger.event('stopped');
  };
  run().catch(error => {
    started.resolve();
    state = 'failed';
    tally.lastError = redact(error instanceof Error ? error.message : String(error));
    tally.lastErrorAt = new Date().toISOString();
    logger.warn('failed', { error: tally.lastError });
  });

  return makeExo('Fae', FaeInterface, {
    help: (methodName?: string) => helpFor(FAE_HELP, methodName),
    status,
    whenStarted: async () => {
      await started.promise;
      return status();
    },
    followEvents: () => parts.events.follow(),
    revokeGrant: (number: number) => approvals.revoke(number),
  });
};
harden(startFae);

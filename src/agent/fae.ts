// src/agent/: the agent itself: startup, the inbox it follows, one bounded
// ReAct turn per message, the system prompt, fae's own settings,
// cancellation and the Fae exo's help texts.
//
// The fae agent: startup, then one turn per incoming message, for as long
// as the daemon keeps it alive. agent.ts wires the provider in; tests can
// hand in a scripted one.
import { E } from '@endo/far';
import { makeExo } from '@endo/exo';
import { M } from '@endo/patterns';
import { makePromiseKit } from '@endo/promise-kit';
import type { Provider } from '../../providers/types.js';
import type { CapletContext, GuestPowers, MessageRecord, Ref } from '../daemon/endo-types.js';
import type { DaemonAdapter, InboxMessage } from '../daemon/adapter.js';
import { makeDaemonAdapter } from '../daemon/adapter.js';
import { formulaIdOf } from '../daemon/dialect.js';
import { readFaeConfig } from './config.js';
import { makeEnvRedactor } from '../logging/redact.js';
import { redactOutgoingMail } from '../daemon/redacted-mail.js';
import { makeLogger } from '../logging/log.js';
import { makeBuiltInTools } from '../toolbox/built-in-tools.js';
import { makeToolRegistry } from '../toolbox/tool-registry.js';
import { provideToolsDirectory } from '../toolbox/tools-directory.js';
import { moveIntroducedTools } from '../toolbox/introduced-tools.js';
import { FAE_SYSTEM_PROMPT } from './system-prompt.js';
import { makeConversations } from '../conversations/conversations.js';
import { CONVERSATIONS_DIRECTORY } from '../conversations/store.js';
import { followInbox } from './inbox.js';
import { makeMessageTurns, type Tally } from './message-turn.js';
import { makeFaeEvents } from './fae-events.js';
import { makeTurnStates } from './turn-states.js';
import { makeProgressReplies } from './progress-reply.js';
import { makeEditableAnswers } from './editable-answers.js';
import { makeOwnCopyWaits } from './own-copy-waits.js';
import { answeredAtStart } from './answered-at-start.js';
import { whenCancelled } from './cancellation.js';
import { FAE_HELP, helpFor } from './fae-help.js';
import { bestEffort } from './best-effort.js';
import { makeDeliver } from './deliver.js';
import { watchOwnNames } from '../daemon/own-names.js';
import { makeSenderNames } from './sender-names.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface StartFaeOptions {
  readonly env: Env;
  readonly provider: Provider;
  /** Where log lines go; console.log by default. */
  readonly write?: (line: string) => void;
  /**
   * Who a message is from, selecting its conversation: the sender's id by
   * default (a formula id on the Feb daemon). A daemon adapter may hand in
   * a normalized raw id for locators.
   */
  readonly correspondentOf?: (message: MessageRecord) => string;
}

export const READY_TEXT = 'Fae agent ready.';

const FaeInterface = M.interface('Fae', {
  help: M.call().optional(M.string()).returns(M.string()),
  status: M.call().returns(M.record()),
  whenStarted: M.call().returns(M.promise()),
  followEvents: M.call().returns(M.remotable('FaeEvents')),
});

type State = 'starting' | 'running' | 'stopped' | 'failed';

export const startFae = (
  guestPowers: Ref<GuestPowers>,
  context: Ref<CapletContext>,
  // The sender's raw id: the same for a raw id and for locators of either
  // syntax, with or without hints, so one sender is one correspondent.
  { env, provider, write, correspondentOf = message => formulaIdOf(message.from) ?? message.from }: StartFaeOptions,
) => {
  const config = readFaeConfig(env);
  const redact = makeEnvRedactor(env);
  const logger = makeLogger({ redact, debug: config.debug, write });
  // fae holds only this view of its powers: every text it mails, whoever
  // sends it, passes the redactor on the way out.
  const powers = redactOutgoingMail(guestPowers, redact);
  powers.catch(() => {}); // reported by run(), through the daemon adapter
  const cancelled = whenCancelled(context);
  // Everything that differs between daemon generations goes through it.
  const daemonAdapter = makeDaemonAdapter(powers);
  daemonAdapter.catch(() => {}); // reported by run()

  let state: State = 'starting';
  // Settles once startup has succeeded or failed.
  const started = makePromiseKit<void>();
  const tally: Tally = { handledMessages: 0, inputTokens: 0, outputTokens: 0, lastError: '' };
  const events = makeFaeEvents();
  const states = makeTurnStates();

  /**
   * Dismissals fae makes for itself: a refusal is logged, never thrown.
   * Resolves whether the message is gone.
   */
  const dismiss = (number: bigint) =>
    E(powers)
      .dismiss(number)
      .then(
        () => true,
        error => {
          logger.warn('dismiss-failed', { message: number, error });
          return false;
        },
      );

  const editable = makeEditableAnswers({ perThread: config.editableTurns, keepMs: config.editableMs, dismiss });
  const copies = makeOwnCopyWaits();

  // One private conversation per correspondent and thread (src/conversations/).
  const conversations = makeConversations(powers, {
    provider,
    limits: config,
    systemPrompt: FAE_SYSTEM_PROMPT,
    redact,
    logger,
    onUsage: (input, output) => {
      tally.inputTokens += input;
      tally.outputTokens += output;
    },
    // The copy of an answer still open to edits stays until it is not (editable-answers.ts).
    dismissOwnCopies: async numbers => {
      await Promise.all(numbers.filter(number => !editable.holdsCopy(number)).map(dismiss));
    },
  });
  const meteredProvider = conversations.meter(provider);
  /** fae's own handle id, once known: its sent copies carry it in `from`. */
  let ownId: string | undefined;

  // What the model did about a message, told by the built-in tools, is
  // kept on that message's own turn (turn-states.ts).
  const builtIns = makeBuiltInTools(powers, {
    daemon: daemonAdapter,
    onDismiss: number => {
      const state = states.of(number);
      if (state !== undefined) state.dismissed = true;
    },
    // A message being answered is dismissed after its turn, so that fae's
    // own closing notice can still reply to it.
    deferDismiss: number => {
      const state = states.of(number);
      if (state === undefined) return false;
      state.dismissed = true;
      return true;
    },
    // Matched by number: a reply or send that lands after its turn (a
    // slow daemon, a timed-out call) answers nothing handled now.
    onReply: number => {
      const state = states.of(number);
      if (state !== undefined) state.answered = true;
    },
    onSend: (_recipient, forMessage) => {
      const state = states.of(forMessage);
      if (state !== undefined) state.answered = true;
    },
    onNameChanged: path => registry.noteChanged(path),
    installedTools: () => registry.installed(),
    offeredTools: () => registry.current(),
    logger,
    probeTimeoutMs: config.probeTimeoutMs,
    // The built-ins work on a view of fae's powers without the store.
    sealed: [{ name: CONVERSATIONS_DIRECTORY, holds: "fae's private memory of its conversations" }],
    forgets: true,
  });
  // fae's own top-level names, watched once for the registry (tools/ may
  // be replaced) and for the sender names kept between messages.
  const ownNames = watchOwnNames(powers, { logger });
  // Follows tools/ (or lists it each step with FAE_TOOL_DISCOVERY=list).
  const registry = makeToolRegistry(powers, builtIns.tools, {
    logger,
    timeoutMs: config.probeTimeoutMs,
    discovery: config.toolDiscovery,
    ownNames,
  });
  void cancelled.promise.then(() => {
    registry.stop();
    ownNames.stop();
    conversations.stop();
  });
  const discover = () => registry.current();

  // Kept while fae's names stay as they are (sender-names.ts): no daemon
  // call for a sender seen before.
  const senderNames = makeSenderNames(async from => (await daemonAdapter).senderNames(from), ownNames);
  const describeSender = async (from: string) => {
    try {
      const names = await senderNames(from);
      return names[0] ?? 'an unnamed sender';
    } catch {
      return 'an unknown sender';
    }
  };

  /** The turns of fae's messages, once the daemon is known (progress replies need it). */
  const turnsOn = (daemon: DaemonAdapter, answeredBefore: Promise<ReadonlySet<string>>) => makeMessageTurns({
    config,
    logger,
    redact,
    conversations,
    provider: meteredProvider,
    offered: discover,
    builtIns,
    deliver: makeDeliver(daemonAdapter, logger, redact, senderNames),
    dismiss,
    describeSender,
    correspondentOf,
    isOwn: message => formulaIdOf(message.from) === ownId,
    cancelled,
    states,
    tally,
    events,
    progress: makeProgressReplies(daemon, {
      afterMs: config.progressAfterMs,
      logger,
      copies,
      onWaiting: number => events.emit({ type: 'progress', message: number, text: 'still waiting for the model' }),
    }),
    copies,
    // Only where fae can edit its answer can an edit of the question be answered in place.
    ...(daemon.canEdit && config.editableTurns > 0 ? { editable } : {}),
    threadOf: message => conversations.laneOf(message, correspondentOf(message)),
    answeredBefore,
  });

  const run = async () => {
    // Each step but following the mail is best effort: a refusal is
    // logged, and fae goes on to serve its mail. The daemon adapter is
    // what follows the mail, so it is not.
    // One after the other: on the February daemon any guest call that
    // ends runs a collection pass, which takes a directory another call
    // has formulated but not yet named.
    const daemon = await daemonAdapter;
    const firstStart = await bestEffort(logger, 'tools-directory', () => provideToolsDirectory(powers, logger), false);
    await bestEffort(logger, 'conversations', () => conversations.start(), undefined);
    ownId = daemon.selfId;
    if (ownId === undefined) {
      logger.warn('identify-self-failed', { error: 'the daemon gave no id for fae itself; its own copies cannot be told apart' });
    }
    await bestEffort(
      logger,
      'introduced-tools',
      () => moveIntroducedTools(powers, { probeTimeoutMs: config.probeTimeoutMs, logger }),
      harden([]),
    );
    // After tools/ exists and the introduced tools are in it, so the first
    // message finds them without listing.
    await registry.start();
    // Only the first start announces itself; a restart is silent.
    if (firstStart) {
      await bestEffort(logger, 'announce-ready', () => daemon.send(daemon.names.host, [READY_TEXT]), undefined);
    }
    state = 'running';
    started.resolve();
    logger.event('started', { provider: provider.kind, model: provider.model, daemon: daemon.dialect });
    // Read before the replay is followed, so that it is what was there at the restart.
    const answeredBefore = answeredAtStart(daemon).catch(error => {
      logger.warn('inbox-not-listed', { error });
      return harden(new Set<string>());
    });
    await answeredBefore;
    const turns = turnsOn(daemon, answeredBefore);
    await followInbox(daemon, {
      cancelled,
      onMessage: turns.handleMessage,
      // An own copy belongs to the conversation with its recipient.
      onOwnMessage: message => {
        turns.noteOwnCopy(message);
        void conversations.noteOwnMessage(message, correspondentOf({ ...message, from: message.to }));
      },
      onIgnoredEdit: message => logger.event('edit-ignored', { message: message.number }),
      onSetAside: message => logger.warn('unfinished-message-set-aside', { message: message.number }),
      // One conversation's turns one at a time; different ones at once.
      laneOf: (message: InboxMessage) => conversations.laneOf(message, correspondentOf(message)),
      concurrency: config.concurrentTurns,
      isEditable: number => editable.has(number),
    });
    state = 'stopped';
    logger.event('stopped');
  };
  run().catch(error => {
    started.resolve();
    state = 'failed';
    tally.lastError = redact(error instanceof Error ? error.message : String(error));
    logger.warn('failed', { error: tally.lastError });
  });

  const status = () =>
    harden({
      state,
      handledMessages: tally.handledMessages,
      inputTokens: tally.inputTokens,
      outputTokens: tally.outputTokens,
      provider: provider.kind,
      model: provider.model,
      lastError: tally.lastError,
      ...conversations.status(),
    });

  return makeExo('Fae', FaeInterface, {
    help: (methodName?: string) => helpFor(FAE_HELP, methodName),
    status,
    whenStarted: async () => {
      await started.promise;
      return status();
    },
    followEvents: () => events.follow(),
  });
};
harden(startFae);

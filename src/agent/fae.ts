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
import type { InboxMessage } from '../daemon/adapter.js';
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
import { formatIncomingMessage } from '../daemon/message-format.js';
import { FAE_SYSTEM_PROMPT } from './system-prompt.js';
import { runTurn } from './turn.js';
import { makeConversations } from '../conversations/conversations.js';
import { CONVERSATIONS_DIRECTORY } from '../conversations/store.js';
import { followInbox, turnCancellation, type TurnEnd, type TurnSignals } from './inbox.js';
import { whenCancelled } from './cancellation.js';
import { FAE_HELP, helpFor } from './fae-help.js';
import { bestEffort } from './best-effort.js';
import { makeDeliver } from './deliver.js';
import { emptyAnswerNotice, forgetFailedNotice } from './closing-notices.js';
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
  let handledMessages = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  let lastError = '';

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

  // One private conversation per correspondent and thread (src/conversations/).
  const conversations = makeConversations(powers, {
    provider,
    limits: config,
    systemPrompt: FAE_SYSTEM_PROMPT,
    redact,
    logger,
    onUsage: (input, output) => {
      inputTokens += input;
      outputTokens += output;
    },
    dismissOwnCopies: async numbers => {
      await Promise.all(numbers.map(dismiss));
    },
  });
  const meteredProvider = conversations.meter(provider);
  let currentCorrespondent: string | undefined;
  /** fae's own handle id, once known: its sent copies carry it in `from`. */
  let ownId: string | undefined;
  const callIdPrefix = Math.random().toString(36).slice(2, 8);
  let callCount = 0;
  const makeCallId = () => {
    callCount += 1;
    return `call_${callIdPrefix}_${callCount}`;
  };

  // What the model did about the message being handled, told by the
  // built-in tools, so fae knows whether to answer or dismiss for it.
  let current = { number: -1n, answered: false, dismissed: false, forgetFailure: undefined as string | undefined };
  const builtIns = makeBuiltInTools(powers, {
    daemon: daemonAdapter,
    onDismiss: number => {
      if (number === current.number) current.dismissed = true;
    },
    // The message being answered is dismissed after the turn, so that
    // fae's own closing notice can still reply to it.
    deferDismiss: number => {
      if (number !== current.number) return false;
      current.dismissed = true;
      return true;
    },
    // Matched by number: a reply or send that lands after its turn (a
    // slow daemon, a timed-out call) answers nothing handled now.
    onReply: number => {
      if (number === current.number) current.answered = true;
    },
    onSend: (_recipient, forMessage) => {
      if (forMessage === current.number) current.answered = true;
    },
    messageBeingHandled: () => (current.number === -1n ? undefined : current.number),
    onNameChanged: path => registry.noteChanged(path),
    installedTools: () => registry.installed(),
    offeredTools: () => registry.current(),
    logger,
    probeTimeoutMs: config.probeTimeoutMs,
    // The built-ins work on a view of fae's powers without the store.
    sealed: [{ name: CONVERSATIONS_DIRECTORY, holds: "fae's private memory of its conversations" }],
    // Mail from the current correspondent, and fae's own mail to them.
    visibleMessage: message =>
      currentCorrespondent !== undefined &&
      (formulaIdOf(message.from) === ownId
        ? correspondentOf({ ...message, from: message.to }) === currentCorrespondent
        : correspondentOf(message) === currentCorrespondent),
    // A failure reaches the model as the tool's error, and the sender in fae's own words.
    onForget: async () => {
      if (currentCorrespondent === undefined) return 0;
      const turn = current;
      return conversations.forget(currentCorrespondent).catch(error => {
        turn.forgetFailure = redact(error instanceof Error ? error.message : String(error));
        throw error;
      });
    },
  });
  // fae's own top-level names, watched once for the registry (tools/ may
  // be replaced) and for the sender names kept between messages.
  const ownNames = watchOwnNames(powers, { logger });
  // Follows tools/ (or lists it each step with FAE_TOOL_DISCOVERY=list).
  const registry = makeToolRegistry(powers, builtIns, {
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

  const deliver = makeDeliver(daemonAdapter, logger, redact, senderNames);

  const handleMessage = async (message: InboxMessage, signals: TurnSignals) => {
    // A revision before the answer stops the turn; it is redone on the final text.
    const stop = turnCancellation(cancelled, signals, () => current.answered);
    try {
      return await handleTurn(message, stop);
    } finally {
      stop.end();
    }
  };

  const handleTurn = async (message: InboxMessage, stop: ReturnType<typeof turnCancellation>): Promise<TurnEnd> => {
    const { number } = message;
    current = { number, answered: false, dismissed: false, forgetFailure: undefined };
    const correspondent = correspondentOf(message);
    currentCorrespondent = correspondent;
    const [sender, tools] = await Promise.all([describeSender(message.from), discover()]);
    logger.event('message-received', { message: number, from: sender, type: message.type });
    let turn: Awaited<ReturnType<typeof conversations.open>>;
    // What the turn ends with: fae's words to the sender, if any, and the
    // note kept in the conversation for a turn that did not answer.
    let closing: { readonly text?: string; readonly note?: string } = {};
    try {
      turn = await conversations.open(message, correspondent, formatIncomingMessage(message, sender));
      if (turn === undefined) {
        // Stored before a restart came between it and its dismissal.
        logger.event('message-already-handled', { message: number });
        handledMessages += 1;
        return config.autoDismiss && (await dismiss(number)) ? 'dismissed' : 'answered';
      }
      const outcome = await runTurn(turn.messages, tools, {
        provider: meteredProvider,
        discover,
        limits: config,
        cancelled: stop.cancelled,
        makeCallId,
        logger,
        messageNumber: number,
        prepareRequest: turn.prepareRequest,
      });
      if (outcome.kind === 'cancelled') {
        // Not handled: after a restart the message is replayed, so it is
        // neither stored nor dismissed.
        turn.abandon();
        if (stop.revised()) {
          logger.event('turn-abandoned', { message: number, reason: 'revised' });
          return 'revised';
        }
        // Cancelled with fae: nothing follows.
        return 'answered';
      }
      // Counted before answering, so status() agrees with what was answered.
      handledMessages += 1;
      inputTokens += outcome.usage.inputTokens;
      outputTokens += outcome.usage.outputTokens;
      logger.event('turn-finished', {
        message: number,
        outcome: outcome.kind,
        iterations: outcome.iterations,
        inputTokens: outcome.usage.inputTokens,
        outputTokens: outcome.usage.outputTokens,
      });
      if (outcome.kind === 'limit') {
        logger.warn('turn-limit', { message: number, iterations: outcome.iterations });
        const text = `I stopped working on message #${number} after ${outcome.iterations} model calls without finishing (the limit is FAE_MAX_ITERATIONS=${config.maxIterations}). Please send a simpler or more specific request.`;
        closing = { text, note: text };
      } else if (!current.answered && outcome.content.trim() !== '') {
        // The model answered in plain text: deliver it to the sender.
        const cutOffNote = outcome.cutOff
          ? '\n\n(This answer was cut off at the output limit, LAL_MAX_TOKENS.)'
          : '';
        closing = { text: `${outcome.content}${cutOffNote}` };
      } else if (!current.answered) {
        // Silence would leave the sender waiting forever.
        const text = emptyAnswerNotice(number);
        closing = { text, note: text };
      }
    } catch (error) {
      const reason = redact(error instanceof Error ? error.message : String(error));
      lastError = reason;
      logger.warn('turn-failed', { message: number, error: reason });
      const text = `Sorry, I could not answer message #${number}: ${reason}`;
      handledMessages += 1;
      closing = { text, note: text };
    } finally {
      currentCorrespondent = undefined;
    }
    if (current.forgetFailure !== undefined) {
      const notice = forgetFailedNotice(current.forgetFailure);
      closing = { ...closing, text: closing.text === undefined ? notice : `${closing.text}\n\n${notice}` };
    }
    // The answer goes out first: the sender waits for nothing else. Then,
    // together, the turn is stored and the message dismissed (a dismissed
    // message can no longer be replied to). A crash between the answer
    // and the store replays the message after a restart, so the sender
    // may hear twice, never not at all.
    if (closing.text !== undefined) await deliver(message, closing.text);
    const [, dismissed] = await Promise.all([
      turn?.finish(closing.note),
      // Handled messages are dismissed so a restart does not replay them.
      config.autoDismiss || current.dismissed ? dismiss(number) : false,
    ]);
    logger.event('message-done', { message: number, messageId: message.messageId });
    return dismissed ? 'dismissed' : 'answered';
  };

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
    await followInbox(daemon, {
      cancelled,
      onMessage: handleMessage,
      // An own copy belongs to the conversation with its recipient.
      onOwnMessage: message => void conversations.noteOwnMessage(message, correspondentOf({ ...message, from: message.to })),
      onIgnoredEdit: message => logger.event('edit-ignored', { message: message.number }),
      onSetAside: message => logger.warn('unfinished-message-set-aside', { message: message.number }),
    });
    state = 'stopped';
    logger.event('stopped');
  };
  run().catch(error => {
    started.resolve();
    state = 'failed';
    lastError = redact(error instanceof Error ? error.message : String(error));
    logger.warn('failed', { error: lastError });
  });

  const status = () =>
    harden({
      state,
      handledMessages,
      inputTokens,
      outputTokens,
      provider: provider.kind,
      model: provider.model,
      lastError,
      ...conversations.status(),
    });

  return makeExo('Fae', FaeInterface, {
    help: (methodName?: string) => helpFor(FAE_HELP, methodName),
    status,
    whenStarted: async () => {
      await started.promise;
      return status();
    },
  });
};
harden(startFae);

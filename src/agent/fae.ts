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
import type { ChatMessage, Provider } from '../../providers/types.js';
import type { CapletContext, GuestPowers, MessageRecord, Ref } from '../daemon/endo-types.js';
import { readFaeConfig } from './config.js';
import { makeEnvRedactor } from '../logging/redact.js';
import { makeLogger } from '../logging/log.js';
import { makeBuiltInTools } from '../toolbox/built-in-tools.js';
import { discoverTools } from '../toolbox/tools.js';
import { provideToolsDirectory } from '../toolbox/tools-directory.js';
import { moveIntroducedTools } from '../toolbox/introduced-tools.js';
import { formatIncomingMessage } from '../daemon/message-format.js';
import { FAE_SYSTEM_PROMPT } from './system-prompt.js';
import { runTurn } from './turn.js';
import { truncateMessages } from '../../providers/truncate.js';
import { followInbox } from './inbox.js';
import { whenCancelled } from './cancellation.js';
import { FAE_HELP, helpFor } from './fae-help.js';
import { bestEffort } from './best-effort.js';
import { makeDeliver } from './deliver.js';
import { emptyAnswerNotice } from './closing-notices.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface StartFaeOptions {
  readonly env: Env;
  readonly provider: Provider;
  /** Where log lines go; console.log by default. */
  readonly write?: (line: string) => void;
}

export const READY_TEXT = 'Fae agent ready.';

const FaeInterface = M.interface('Fae', {
  help: M.call().optional(M.string()).returns(M.string()),
  status: M.call().returns(M.record()),
  whenStarted: M.call().returns(M.promise()),
});

type State = 'starting' | 'running' | 'stopped' | 'failed';

export const startFae = (
  powers: Ref<GuestPowers>,
  context: Ref<CapletContext>,
  { env, provider, write }: StartFaeOptions,
) => {
  const config = readFaeConfig(env);
  const redact = makeEnvRedactor(env);
  const logger = makeLogger({ redact, debug: config.debug, write });
  const cancelled = whenCancelled(context);

  let state: State = 'starting';
  // Settles once startup has succeeded or failed.
  const started = makePromiseKit<void>();
  let handledMessages = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  let lastError = '';

  const transcript: ChatMessage[] = [{ role: 'system', content: FAE_SYSTEM_PROMPT }];
  const callIdPrefix = Math.random().toString(36).slice(2, 8);
  let callCount = 0;
  const makeCallId = () => {
    callCount += 1;
    return `call_${callIdPrefix}_${callCount}`;
  };

  // What the model did about the message being handled, told by the
  // built-in tools, so fae knows whether to answer or dismiss for it.
  let current = { number: -1n, answered: false, dismissed: false };
  const builtIns = makeBuiltInTools(powers, {
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
    onReply: () => {
      current.answered = true;
    },
    onSend: () => {
      current.answered = true;
    },
    redact,
    logger,
    probeTimeoutMs: config.probeTimeoutMs,
  });
  const reported = new Set<string>();
  const discover = () =>
    discoverTools(powers, builtIns, { logger, timeoutMs: config.probeTimeoutMs, reported });

  const describeSender = async (from: string) => {
    try {
      const names = await E(powers).reverseIdentify(from);
      return names[0] ?? 'an unnamed sender';
    } catch {
      return 'an unknown sender';
    }
  };

  const deliver = makeDeliver(powers, logger, redact);

  const handleMessage = async (message: MessageRecord) => {
    const { number } = message;
    current = { number, answered: false, dismissed: false };
    const [sender, tools] = await Promise.all([describeSender(message.from), discover()]);
    logger.event('message-received', { message: number, from: sender, type: message.type });
    transcript.push(harden({ role: 'user', content: formatIncomingMessage(message, sender) }));
    // A turn cut short by cancellation is not handled: after a restart
    // the message is replayed, so it must not be dismissed.
    let finished = true;
    try {
      const outcome = await runTurn(transcript, tools, {
        provider,
        discover,
        limits: config,
        cancelled,
        makeCallId,
        logger,
        messageNumber: number,
      });
      if (outcome.kind === 'cancelled') {
        finished = false;
        return;
      }
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
        await deliver(
          message,
          `I stopped working on message #${number} after ${outcome.iterations} model calls without finishing (the limit is FAE_MAX_ITERATIONS=${config.maxIterations}). Please send a simpler or more specific request.`,
        );
      } else if (!current.answered && outcome.content.trim() !== '') {
        // The model answered in plain text: deliver it to the sender.
        const note = outcome.cutOff
          ? '\n\n(This answer was cut off at the output limit, LAL_MAX_TOKENS.)'
          : '';
        await deliver(message, `${outcome.content}${note}`);
      } else if (!current.answered) {
        // Silence would leave the sender waiting forever.
        await deliver(message, emptyAnswerNotice(number));
      }
    } catch (error) {
      const reason = redact(error instanceof Error ? error.message : String(error));
      lastError = reason;
      logger.warn('turn-failed', { message: number, error: reason });
      await deliver(message, `Sorry, I could not answer message #${number}: ${reason}`);
    } finally {
      // Forget the oldest turns past the cap, cutting at a user turn.
      const kept = truncateMessages(transcript, config.maxTranscript);
      if (kept !== transcript) transcript.splice(0, transcript.length, ...kept);
      if (finished) handledMessages += 1;
      if (finished && (config.autoDismiss || current.dismissed)) {
        // Handled messages are dismissed so a restart does not replay them.
        await E(powers).dismiss(number).catch(error => logger.warn('dismiss-failed', { message: number, error }));
      }
      if (finished) logger.event('message-done', { message: number, messageId: message.messageId });
    }
  };

  const run = async () => {
    // Each step but following the mail is best effort: a refusal is
    // logged, and fae goes on to serve its mail.
    const [selfId, firstStart] = await Promise.all([
      bestEffort(logger, 'identify-self', async () => E(powers).identify('SELF'), undefined),
      bestEffort(logger, 'tools-directory', () => provideToolsDirectory(powers, logger), false),
    ]);
    await bestEffort(
      logger,
      'introduced-tools',
      () => moveIntroducedTools(powers, { probeTimeoutMs: config.probeTimeoutMs, logger }),
      harden([]),
    );
    // Only the first start announces itself; a restart is silent.
    if (firstStart) {
      await bestEffort(logger, 'announce-ready', () => E(powers).send('HOST', [READY_TEXT], [], []), undefined);
    }
    state = 'running';
    started.resolve();
    logger.event('started', { provider: provider.kind, model: provider.model });
    await followInbox(powers, { selfId: selfId ?? '', cancelled, onMessage: handleMessage });
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

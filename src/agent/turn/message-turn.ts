// src/agent/turn/: the inbox, one turn per message, its progress and its end.
// Imports: the layers below src/agent, and the rest of src/agent but fae.ts.
//
// One message, one turn: its conversation opened, the ReAct loop run with
// the turn's own built-ins, fae's closing words (the model's plain answer,
// or a notice in the voice of whoever reads it), then the turn stored and
// the message dismissed. A command (/help, /tools, /status, /forget) takes
// its turn in the same order but is answered by fae itself, with no model
// call and nothing stored. Turns of different conversations run at once
// (the inbox schedules them), so everything a turn knows lives in its own
// TurnState.
import type { InboxMessage } from '../../daemon/adapter.js';
import type { OpenTurn } from '../../conversations/conversations.js';
import { correspondentPrefix } from '../../conversations/threads.js';
import type { TurnScope } from '../../toolbox/built-ins/turn-scope.js';
import { offeredWhere, type DiscoveredTools } from '../../toolbox/discovered-tools.js';
import { withinToolBudget } from '../../toolbox/tool-budget.js';
import { formatIncomingMessage } from '../../daemon/message-format.js';
import { ContextOverflowError, troubleOf } from '../../../providers/errors.js';
import type { TurnProgress } from './progress-reply.js';
import { makeTurnClosing, type Closing } from './turn-closing.js';
import { makeLeftReplies } from './answered-at-start.js';
import { turnCancellation, type TurnEnd, type TurnSignals } from './inbox.js';
import { noUsage, runTurn, type TurnOutcome, type TurnUsage } from './turn.js';
import type { TurnState } from './turn-states.js';
import { subjectOf, turnFailedNotice, type Subject } from './closing-notices.js';
import { answerCommand, commandArgument, commandOf, type Command } from '../host/commands.js';
import { BUDGET_NOTICE, BudgetReached } from '../limits/budget.js';
import { approverOf, budgeted, principalOf, waitingOf, type TurnWaiting } from './turn-authority.js';
import { paceNotice } from '../limits/pace.js';
import { petNameIn } from '../authority/sender-names.js';
import type { MessageTurnOptions } from './message-turn-options.js';

/**
 * A model call waits for fae's settings (provider-switch.ts): the progress
 * reply says so, instead of "still waiting for the model" (which has not
 * been asked).
 */
const awaitSettings = ({ events }: MessageTurnOptions, state: TurnState, progress: TurnProgress, fromHost: boolean) => {
  progress.awaiting(
    fromHost
      ? 'Working on it… waiting for your answer to the settings form.'
      : 'Working on it… waiting for my host to set up my language model.',
    { now: false },
  );
  events.emit({ type: 'progress', message: state.number, text: "waiting for the host's settings" });
};

/** What a turn works with besides its message and state. */
interface TurnParts {
  /** How the sender is named to the model (its pet name, when fae has one). */
  readonly sender: string;
  readonly stop: ReturnType<typeof turnCancellation>;
  readonly tools: DiscoveredTools;
  readonly progress: TurnProgress;
  /** Frees the turn's place among the concurrent turns while it waits for the host (inbox.ts). */
  readonly park: () => () => void;
}

/** What the model reads after an edited message that it answered before. */
const EDITED_NOTE =
  '(The sender edited this message after you answered it. Answer it as it stands now: your answer replaces your earlier one.)';


/**
 * Forgets the turn's correspondent. A failure reaches the caller (the
 * model, as the tool's error), and the sender in fae's own words.
 */
const forgetting = ({ conversations, redact, editable }: MessageTurnOptions, state: TurnState) => async () => {
  let forgotten: number;
  try {
    forgotten = await conversations.forget(state.correspondent);
  } catch (error) {
    state.forgetFailure = redact(error instanceof Error ? error.message : String(error));
    throw error;
  }
  // The threads' keys begin with their correspondent's part (threads.ts).
  const prefix = correspondentPrefix(state.correspondent);
  editable?.releaseThreads(thread => thread.startsWith(prefix));
  return forgotten;
};

/**
 * What the turn tells the built-ins it calls: its message, whose authority
 * it acts with, its correspondent to forget. Frozen, not hardened: it goes
 * to fae's own built-ins only (executeTool), and hardening would walk its
 * functions, made for every turn.
 */
const turnScopeOf = (options: MessageTurnOptions, state: TurnState, waiting: TurnWaiting, fromHost: boolean): TurnScope =>
  Object.freeze({
    messageNumber: state.number,
    principal: principalOf(options, state, waiting, fromHost),
    forget: forgetting(options, state),
    waitingForHost: waiting.waitingForHost,
  });

/** What a turn's model calls spent, counted for status(). */
const countTokens = ({ tally }: MessageTurnOptions, spent: TurnUsage) => {
  tally.inputTokens += spent.inputTokens;
  tally.outputTokens += spent.outputTokens;
};

/** What a turn's model calls spent, counted in its correspondent's usage (the budget counts each call as it settles); the totals. */
const charge = ({ usage }: MessageTurnOptions, spent: TurnUsage, state: TurnState, sender: string) => {
  // Stored once the turn has answered (turn-closing.ts): the answer waits for nothing.
  return usage.turn(state.correspondent, petNameIn(sender), spent);
};

/** What a turn's model calls spent, counted for status(), the budget and its correspondent's usage. */
const spend = (options: MessageTurnOptions, spent: TurnUsage, state: TurnState, sender: string) => {
  countTokens(options, spent);
  charge(options, spent, state, sender);
};

/**
 * Counts the finished loop for status(), before its answer, so that
 * status() agrees with what was answered. What it cost is charged (the
 * budget, its correspondent's usage) and logged by the function returned,
 * which the closing calls once the answer is out: none of it holds up
 * the answer, and it is done before fae reads its next message.
 */
const tallied = (
  options: MessageTurnOptions,
  outcome: Exclude<TurnOutcome, { kind: 'cancelled' }>,
  state: TurnState,
  sender: string,
) => {
  const { tally, logger } = options;
  tally.handledMessages += 1;
  countTokens(options, outcome.usage);
  return () => {
    const totals = charge(options, outcome.usage, state, sender);
    logger.event('turn-finished', {
      message: state.number,
      outcome: outcome.kind,
      iterations: outcome.iterations,
      requests: outcome.usage.requests,
      inputTokens: outcome.usage.inputTokens,
      cachedInputTokens: outcome.usage.cachedInputTokens,
      outputTokens: outcome.usage.outputTokens,
      ...(totals.unpricedRequests === 0 && totals.requests > 0 ? { costUsd: Math.round(totals.costUsd * 1e6) / 1e6 } : {}),
    });
  };
};


/** fae's own answer to a command: no model call, nothing kept in the conversation. */
const commandClosing = async (
  options: MessageTurnOptions,
  command: Command,
  { message, state, subject, tools }: { readonly message: InboxMessage; readonly state: TurnState; readonly subject: Subject; readonly tools: DiscoveredTools },
): Promise<Closing> => {
  options.logger.event('command', { message: state.number, command });
  options.tally.handledMessages += 1;
  const answer = await answerCommand(command, {
    fromHost: subject.fromHost,
    sender: subject.sender,
    tools,
    status: options.status,
    forget: forgetting(options, state),
    askSettings: options.askSettings,
    approvals: options.approvalsView ?? (() => harden({ policy: 'none', policyFrom: 'FAE_APPROVE', grants: [] })),
    revoke: options.revokeGrant ?? (async () => false),
    ...(options.nameCorrespondent === undefined ? {} : { name: options.nameCorrespondent }),
    argument: commandArgument(message),
  });
  return answer === undefined ? {} : { answer };
};

/** A turn that failed: the sender is told in its voice, the host in its own. */
const failedClosing = (
  { redact, tally, logger, hostWords = text => text }: MessageTurnOptions,
  error: unknown,
  subject: Subject,
): Closing => {
  const reason = redact(error instanceof Error ? error.message : String(error));
  // The log keeps the setup's names; the host reads its own (/status, the notice).
  tally.lastError = hostWords(reason);
  tally.lastErrorAt = new Date().toISOString();
  logger.warn('turn-failed', { message: subject.number, error: reason });
  tally.handledMessages += 1;
  return { notices: [turnFailedNotice(troubleOf(error), hostWords(reason), subject)], noted: true };
};

/** A turn whose model calls reached its correspondent's budget: it ends with the budget's notice. */
const budgetClosing = ({ tally, logger }: MessageTurnOptions, subject: Subject): Closing => {
  logger.event('turn-over-budget', { message: subject.number });
  tally.handledMessages += 1;
  return { answer: BUDGET_NOTICE, noted: true };
};

/**
 * Whether the model may be asked for a correspondent's message: 'ok', or
 * the notice fae answers with instead (past its budget, or paused for its
 * pace: told once), or the event of a message set aside unanswered.
 */
const modelAllowed = (
  { budget, pace, config }: MessageTurnOptions,
  state: TurnState,
  sender: string,
  fromHost: boolean,
): 'ok' | { readonly notice: string } | { readonly quiet: string } => {
  const spending = budget.check(state.correspondent, sender, fromHost);
  if (spending === 'quiet') return { quiet: 'budget-quiet' };
  if (spending === 'notice') return { notice: BUDGET_NOTICE };
  const pacing = pace.check(state.correspondent, sender, fromHost);
  if (pacing === 'quiet') return { quiet: 'pace-quiet' };
  if (pacing === 'notice') return { notice: paceNotice(Math.max(1, Math.round(config.pauseMs / 60_000))) };
  return 'ok';
};

/** A message left without a turn (handled before, or past its budget): dismissed as answered ones are. */
const setAside = async (
  { logger, config, dismiss }: MessageTurnOptions,
  event: string,
  number: bigint,
  progress: TurnProgress,
): Promise<TurnEnd> => {
  logger.event(event, { message: number });
  progress.abandon();
  return config.autoDismiss && (await dismiss(number)) ? 'dismissed' : 'answered';
};

/**
 * Opens the message's turn in its conversation; undefined when it was
 * answered before. With `answered`, one answered before a restart (open-turns.ts).
 */
const openTurn = async (
  { conversations }: MessageTurnOptions,
  message: InboxMessage,
  state: TurnState,
  sender: string,
  earlier: Promise<bigint | undefined> | undefined,
  answered = false,
) => {
  const text = formatIncomingMessage(message, sender);
  return earlier === undefined
    ? conversations.open(message, state.correspondent, text, { answered })
    : conversations.open(message, state.correspondent, `${text}\n\n${EDITED_NOTE}`, { revision: message.date });
};

/** Answered before a restart came between the answer and the dismissal (stored, or kept open to edits). */
const alreadyHandled = async (options: MessageTurnOptions, number: bigint, progress: TurnProgress): Promise<TurnEnd> => {
  options.tally.handledMessages += 1;
  return setAside(options, 'message-already-handled', number, progress);
};

/**
 * Answered before a restart that may have come before its turn was
 * stored: the turn is kept, from the message and the answer fae's own
 * copy shows (what the model did on the way is not known), unless it is
 * stored already (or may be: its conversation cannot be read now); it is
 * not answered again.
 */
const keepAnswered = async (
  options: MessageTurnOptions,
  message: InboxMessage,
  { state, sender, answer, progress }: { state: TurnState; sender: string; answer: string; progress: TurnProgress },
) => {
  // A command's answer is no turn of a conversation.
  if (commandOf(message) !== undefined) return alreadyHandled(options, message.number, progress);
  try {
    const turn = await openTurn(options, message, state, sender, undefined, true);
    if (turn !== undefined) {
      turn.messages.push(harden({ role: 'assistant', content: answer }));
      await turn.finish();
      options.logger.event('answered-turn-kept', { message: message.number });
    }
  } catch (error) {
    options.logger.warn('answered-turn-not-kept', { message: message.number, error });
  }
  return alreadyHandled(options, message.number, progress);
};

/** Ids for the tool calls a model makes without one: unique within this run of fae. */
const makeCallIds = () => {
  const callIdPrefix = Math.random().toString(36).slice(2, 8);
  let callCount = 0;
  return () => {
    callCount += 1;
    return `call_${callIdPrefix}_${callCount}`;
  };
};

/**
 * A turn that failed outside the loop's own failure boundary (naming its
 * sender, its progress reply, its closing: the answer, the store, the
 * dismissal) fails alone: the sender hears of it unless its answer is
 * out, the host gets the detail (once per kind per ten minutes), and fae
 * serves the rest of its mail. The message stays in the inbox.
 */
const brokenTurn = async (options: MessageTurnOptions, message: InboxMessage, state: TurnState, error: unknown): Promise<TurnEnd> => {
  const { logger, redact, reports, deliver } = options;
  const reason = redact(error instanceof Error ? error.message : String(error));
  logger.warn('turn-broke', { message: message.number, error: reason });
  const fromHost = options.isFromHost(message);
  const notice = turnFailedNotice('failed', reason, subjectOf(message, fromHost ? 'you' : 'a correspondent', fromHost, redact));
  const told = state.answered
    ? Promise.resolve(true)
    : deliver(message, fromHost ? notice.detailed : notice.plain).catch(() => false);
  await Promise.all([told, fromHost ? undefined : reports.report(notice)]);
  return 'answered';
};

/** The tools a turn is offered: the built-ins, and of tools/ those its correspondent may use (adopted-from.ts). */
const offeredTo = ({ mayUse, config }: MessageTurnOptions, state: TurnState, fromHost: boolean, tools: DiscoveredTools) =>
  withinToolBudget(mayUse === undefined ? tools : offeredWhere(tools, origin => mayUse(origin.id, state.correspondent, fromHost)), config.toolTokens);

/** A message as it stays known across restarts: its id, else its number. */
const keyOf = (message: InboxMessage) => message.messageId ?? `#${message.number}`;

/**
 * Runs the loop for the open turn; the closing, or how the turn ended
 * without one (cancelled, or revised).
 */
const work = async (
  options: MessageTurnOptions,
  { closingOf, makeCallId }: { closingOf: ReturnType<typeof makeTurnClosing>['closingOf']; makeCallId: () => string },
  message: InboxMessage,
  state: TurnState,
  turn: OpenTurn,
  { sender, stop, tools, progress, park }: TurnParts,
  subject: Subject,
): Promise<Closing | TurnEnd> => {
  const { config, logger, events } = options;
  const spent = noUsage();
  // The server's word on its context, asked once per provider (context-window.ts).
  options.contextWindow?.fromServer(await options.serverWindow?.().catch(() => undefined));
  const waiting = waitingOf(
    options,
    state,
    { sender, messageKey: keyOf(message), about: subject.about, progress, park, cancelled: stop.cancelled },
    subject.fromHost,
  );
  const outcome = await runTurn(turn.messages, tools, {
    usage: spent,
    approve: approverOf(options, waiting),
    provider: budgeted(options, state, sender, subject.fromHost),
    discover: async () => offeredTo(options, state, subject.fromHost, await options.offered()),
    limits: config,
    cancelled: stop.cancelled,
    makeCallId,
    logger,
    messageNumber: message.number,
    scope: turnScopeOf(options, state, waiting, subject.fromHost),
    prepareRequest: turn.prepareRequest,
    onToolCall: tool => {
      events.emit({ type: 'tool-called', message: message.number, tool });
      progress.tool(tool);
    },
    onModelCall: () =>
      options.settingUp?.() === true ? awaitSettings(options, state, progress, subject.fromHost) : progress.waiting(),
    onText: progress.text,
    onProgress: read => {
      progress.reading(read);
      events.emit({ type: 'progress', message: message.number, text: `the model is reading the conversation, ${Math.floor((read.processed / Math.max(1, read.total)) * 100)}%` });
    },
    // Where the server said how long the request was, the estimates learnt it (request-meter.ts); else the window narrows.
    narrowed: error =>
      error instanceof ContextOverflowError &&
      (error.requestTokens !== undefined || (options.contextWindow?.refused(error.contextTokens) ?? false)),
  }).catch(error => {
    // What the calls before the failure spent is spent all the same.
    if (spent.requests > 0) spend(options, spent, state, sender);
    throw error;
  });
  if (outcome.kind !== 'cancelled') {
    const charged = tallied(options, outcome, state, sender);
    return { ...closingOf(outcome, state, subject), charged };
  }
  // Not handled: after a restart the message is replayed, so it is
  // neither stored nor dismissed.
  turn.abandon();
  progress.abandon();
  if (!stop.revised()) return 'answered'; // cancelled with fae: nothing follows
  logger.event('turn-abandoned', { message: message.number, reason: 'revised' });
  return 'revised';
};

export const makeMessageTurns = (options: MessageTurnOptions) => {
  const { logger, states, events } = options;
  const { closingOf, close } = makeTurnClosing(options);
  const makeCallId = makeCallIds();
  const left = makeLeftReplies(options.atStart);

  const handleTurn = async (
    message: InboxMessage,
    state: TurnState,
    stop: ReturnType<typeof turnCancellation>,
    { park, answered }: Pick<TurnSignals, 'park' | 'answered'>,
  ) => {
    const { number } = message;
    // An edit of a message answered before: its answer is edited into the new one.
    const earlier = options.editable?.take(number);
    // A reply a restart left unfinished becomes this turn's (no second "Working on it…").
    const progress = options.progress.start(message, earlier, earlier === undefined ? left.take(message) : undefined);
    // What the message attaches may go back to its sender unasked (given-by.ts).
    options.gives?.note(message, state.correspondent);
    const [sender, allTools] = await Promise.all([options.describeSender(message.from, state.correspondent), options.offered()]);
    const tools = offeredTo(options, state, options.isFromHost(message), allTools);
    logger.event('message-received', { message: number, from: sender, type: message.type });
    events.emit({ type: 'turn-started', message: number, from: sender });
    const subject = subjectOf(message, sender, options.isFromHost(message), options.redact);
    let turn: OpenTurn | undefined;
    let closing: Closing;
    const answeredBefore = earlier === undefined && message.messageId !== undefined ? options.atStart.answered.get(message.messageId) : undefined;
    try {
      if (answeredBefore !== undefined) return await keepAnswered(options, message, { state, sender, answer: answeredBefore, progress });
      const command = commandOf(message);
      const allowed = command === undefined ? modelAllowed(options, state, sender, subject.fromHost) : 'ok';
      // Told so already (past its budget today, or paused): dismissed with no answer.
      if (typeof allowed === 'object' && 'quiet' in allowed) return await setAside(options, allowed.quiet, number, progress);
      if (typeof allowed === 'object') {
        // No model call, and nothing for the conversation to keep.
        closing = { answer: allowed.notice };
      } else if (command === undefined) {
        turn = await openTurn(options, message, state, sender, earlier);
        if (turn === undefined) return await alreadyHandled(options, number, progress);
        const worked = await work(options, { closingOf, makeCallId }, message, state, turn, { sender, stop, tools, progress, park }, subject);
        if (typeof worked === 'string') return worked;
        closing = worked;
      } else {
        closing = await commandClosing(options, command, { message, state, subject, tools });
      }
    } catch (error) {
      // A turn too long for the model would fail again as any later turn's history: it is not kept.
      if (error instanceof ContextOverflowError) {
        turn?.abandon();
        turn = undefined;
      }
      closing = error instanceof BudgetReached ? budgetClosing(options, subject) : failedClosing(options, error, subject);
    }
    const end = await close(message, { state, turn, progress, earlier, subject, onAnswered: answered }, closing);
    // Stored: the calls its host approved will not be made again after a restart (approved-calls.ts).
    await options.approvals?.settled(keyOf(message));
    return end;
  };

  /** Runs the turn of `message`; how it ended, for the inbox. */
  const handleMessage = async (message: InboxMessage, signals: TurnSignals): Promise<TurnEnd> => {
    const state = states.open(message.number, options.correspondentOf(message));
    // A revision before the answer stops the turn; it is redone on the final text.
    const stop = turnCancellation(options.cancelled, signals, () => state.answered);
    try {
      return await handleTurn(message, state, stop, signals);
    } catch (error) {
      return brokenTurn(options, message, state, error);
    } finally {
      stop.end();
      states.close(state);
      const copy = left.ended(message.number);
      if (copy !== undefined) options.leftReplyDone?.(copy);
    }
  };
  return harden({
    handleMessage,
    /** fae's own copy of something it sent (one fae waits for is picked out). */
    noteOwnCopy: (copy: InboxMessage) => options.copies.note(copy),
  });
};
harden(makeMessageTurns);

// What a turn may do, decided outside the model: whose authority it acts
// with (its principal: its correspondent's mail, hand-overs only through
// the give gate), how it waits for its host's approval, and its model
// calls held to its correspondent's budget, call by call.
import type { ChatMessage, ChatOptions, Provider, ToolSchema } from '../../../providers/types.js';
import type { MessageRecord } from '../../daemon/endo-types.js';
import type { Give, TurnPrincipal } from '../../toolbox/built-ins/turn-scope.js';
import type { DiscoveredTools } from '../../toolbox/discovered-tools.js';
import { estimateRequest } from '../../conversations/requests/tokens.js';
import type { ApprovalTurn } from '../authority/approvals.js';
import { BudgetReached } from '../limits/budget.js';
import type { Cancellation } from './cancellation.js';
import type { TurnProgress } from './progress-reply.js';
import type { TurnState } from './turn-states.js';
import type { MessageTurnOptions } from './message-turn-options.js';
import { REPORTED_ALREADY, inBackground } from '../../background.js';

/** How a turn waits for its host (a tool call's approval, a hand-over): who it is, who is told, whose place is freed. */
export interface TurnWaiting {
  readonly turn: ApprovalTurn;
  readonly onWait: (what: string) => void;
  readonly park: () => () => void;
  /** Whether the turn waits for its host now. */
  readonly waitingForHost: () => boolean;
  readonly cancelled: Cancellation;
}

/**
 * How the turn waits for its host. Its sender is told once that the turn
 * waits (the host, who gets the request itself, only where its progress
 * reply shows it anyway).
 */
export const waitingOf = (
  { events }: MessageTurnOptions,
  state: TurnState,
  {
    sender,
    messageKey,
    about,
    progress,
    park,
    cancelled,
  }: {
    readonly sender: string;
    /** Its message, as known across restarts (its id, else its number). */
    readonly messageKey: string;
    /** Its message's first words, quoted, for what the host reads. */
    readonly about: string | undefined;
    readonly progress: TurnProgress;
    readonly park: () => () => void;
    readonly cancelled: Cancellation;
  },
  fromHost: boolean,
): TurnWaiting => {
  let told = false;
  const onWait = (what: string) => {
    const now = !told && !fromHost;
    told = true;
    const whose = fromHost ? 'your' : "my host's";
    progress.awaiting(`Working on it… waiting for ${whose} approval to ${what.startsWith('give ') ? what : `run ${what}`}.`, { now });
    events.emit({ type: 'progress', message: state.number, text: `waiting for the host's approval to ${what.startsWith('give ') ? what : `run ${what}`}` });
  };
  const turn = harden({
    message: state.number,
    messageKey,
    correspondent: state.correspondent,
    sender,
    fromHost,
    ...(about === undefined ? {} : { about }),
  });
  // A wait for the host parks the turn (inbox.ts); while it is parked, the time of its built-in calls stands still.
  let parked = 0;
  const parkWhileWaiting = () => {
    parked += 1;
    const unpark = park();
    let back = false;
    return () => {
      if (back) return;
      back = true;
      parked -= 1;
      unpark();
    };
  };
  return Object.freeze({ turn, onWait, park: parkWhileWaiting, waitingForHost: () => parked > 0, cancelled });
};

/** The turn's gate before each tool call: the host's approval where it is needed. */
export const approverOf = ({ approvals }: MessageTurnOptions, { turn, onWait, park }: TurnWaiting) => {
  if (approvals === undefined) return undefined;
  return (name: string, args: Readonly<Record<string, unknown>>, tools: DiscoveredTools, signal: AbortSignal) =>
    approvals.gate({ name, args, tools, turn, signal, onWait, park });
};

/**
 * The authority the turn acts with (turn-scope.ts): its correspondent's
 * mail (the host's: all of it), and a hand-over only through the give
 * gate, which may wait for the host like a tool call's approval.
 */
export const principalOf = (options: MessageTurnOptions, state: TurnState, waiting: TurnWaiting, fromHost: boolean): TurnPrincipal => {
  const { gives, isOwn, correspondentOf } = options;
  let signal: AbortSignal | undefined;
  /** The turn's cancellation as a signal, made on the first hand-over that asks. */
  const signalOf = () => {
    if (signal === undefined) {
      const controller = new AbortController();
      inBackground(
        waiting.cancelled.promise.then(reason => controller.abort(reason)),
        REPORTED_ALREADY, // a cancellation only resolves
      );
      signal = controller.signal;
    }
    return signal;
  };
  return Object.freeze({
    isHost: fromHost,
    // Mail from the turn's correspondent, and fae's own mail to them; all of it for the host.
    ownsMessage: (message: MessageRecord) =>
      fromHost ||
      (isOwn(message) ? correspondentOf({ ...message, from: message.to }) : correspondentOf(message)) === state.correspondent,
    mayGive: async (give: Give) => {
      if (gives === undefined) {
        if (give.to.isHost) return;
        throw Error('handing a capability over needs the host\'s approval, which cannot be asked here');
      }
      await gives.gate({ give, turn: waiting.turn, signal: signalOf(), onWait: waiting.onWait, park: waiting.park });
    },
  });
};

/**
 * The provider as one turn calls it: each call claims its estimated cost
 * from the correspondent's budget before it goes out, and settles with
 * what it cost (budget.ts); past the budget it fails with BudgetReached.
 */
export const budgeted = ({ provider, budget }: MessageTurnOptions, state: TurnState, sender: string, fromHost: boolean): Provider =>
  Object.freeze({
    kind: provider.kind,
    model: provider.model,
    chat: async (messages: readonly ChatMessage[], schemas: readonly ToolSchema[], chatOptions?: ChatOptions) => {
      const claim = budget.claim(state.correspondent, sender, fromHost, estimateRequest(messages, schemas));
      if (claim === undefined) throw new BudgetReached();
      let used = 0;
      try {
        const result = await provider.chat(messages, schemas, chatOptions);
        used = (result.usage?.inputTokens ?? 0) + (result.usage?.outputTokens ?? 0);
        return result;
      } finally {
        claim.settle(used);
      }
    },
  });


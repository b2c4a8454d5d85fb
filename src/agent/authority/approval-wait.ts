// Waiting for the host's answer to one approval request, the same for a
// tool call (approvals.ts) and a hand-over (approval-gives.ts): only the
// asking turn waits, it gives up its place among the concurrent turns
// meanwhile, and the wait is bounded (FAE_APPROVAL_TIMEOUT_MS) and ends
// when the turn is cancelled.
import { TimeoutError, unlessGivenUp } from '../../timeout.js';
import { durationText } from './approval-text.js';
import type { ApprovalChannel, Choices, HostAnswer } from './approval-channel.js';

/** How the asking turn waits: its cancellation, who is told, whose place is freed. */
export interface WaitingTurn {
  /** The turn's: ends the wait when the turn is cancelled. */
  readonly signal: AbortSignal;
  /** Told as the wait begins (the turn tells its sender, once), with what waits. */
  readonly onWait?: (what: string) => void;
  /** Frees the turn's place among the concurrent turns while it waits; returns the taking back. */
  readonly park?: () => () => void;
}

export type WaitOutcome =
  | { readonly kind: 'answer'; readonly answer: HostAnswer }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'failed'; readonly problem: unknown }
  /** The turn was cancelled: the caller says so and throws `error`. */
  | { readonly kind: 'abandoned'; readonly error: unknown };

export const makeHostWait = ({ channel, timeoutMs }: { readonly channel: ApprovalChannel; readonly timeoutMs: number }) => {
  let waiting = 0;

  /** Counts a wait while it lasts; returns its end. */
  const hold = () => {
    waiting += 1;
    let over = false;
    return () => {
      if (over) return;
      over = true;
      waiting -= 1;
    };
  };

  /** Mails the host `text`, offering `choices`, and waits for the answer. */
  const wait = async (text: string, choices: Choices, what: string, turn: WaitingTurn): Promise<WaitOutcome> => {
    turn.onWait?.(what);
    const unpark = turn.park?.();
    const release = hold();
    let asked: ReturnType<ApprovalChannel['ask']> | undefined;
    try {
      asked = channel.ask(text, choices);
      const answer = await unlessGivenUp(asked.answer, { timeoutMs, describe: () => 'no answer', signal: turn.signal });
      return harden({ kind: 'answer', answer });
    } catch (error) {
      if (error instanceof TimeoutError) {
        asked?.stopWaiting(`I had waited ${durationText(timeoutMs)}`, { final: true });
        return harden({ kind: 'timeout' });
      }
      if (turn.signal.aborted) {
        asked?.stopWaiting('the turn was stopped', { final: false });
        return harden({ kind: 'abandoned', error });
      }
      return harden({ kind: 'failed', problem: error });
    } finally {
      release();
      unpark?.();
    }
  };

  return harden({ wait, hold, waiting: () => waiting, timeoutMs, waitText: durationText(timeoutMs) });
};
harden(makeHostWait);
export type HostWait = ReturnType<typeof makeHostWait>;

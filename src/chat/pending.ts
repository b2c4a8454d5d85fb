// Which of the user's messages fae has not finished with yet. A message
// is finished when fae says its turn is done (its `turn-done` event,
// fae-follower.ts), whether the turn ended with an answer, a notice, or a
// send: a reply alone does not finish it, since fae may first reply that
// it is working on it. The event names the message by its messageId, and
// the host learns a sent message's id from its own copy in its inbox, so
// a send is "expected" from the moment it starts until that copy is seen.
//
// When input ends, the chat waits until everything is finished, or fae has
// stopped, or nothing at all has happened for `quietMs` (fae's own timeouts
// bound every model call and tool call, so silence that long means no
// answer is coming: events were lost, say).
export type Settled = 'answered' | 'stopped' | 'silent';

export interface PendingOptions {
  /** Told whenever the "something is unanswered" state flips. */
  readonly onBusyChange?: (busy: boolean) => void;
  readonly now?: () => number;
  /** How often whenSettled looks at the clock, in ms. */
  readonly pollMs?: number;
}

export const makePendingAnswers = ({
  onBusyChange = () => {},
  now = Date.now,
  pollMs = 200,
}: PendingOptions = {}) => {
  let expectedCopies = 0;
  const unanswered = new Set<string>();
  // Messages fae was done with before the host saw its own copy.
  const doneEarly = new Set<string>();
  let lastActivity = now();
  let stopped = false;
  let wasBusy = false;
  const listeners = new Set<() => void>();

  const busy = () => expectedCopies > 0 || unanswered.size > 0;
  const changed = () => {
    lastActivity = now();
    const isBusy = busy();
    if (isBusy !== wasBusy) {
      wasBusy = isBusy;
      onBusyChange(isBusy);
    }
    for (const listener of listeners) listener();
  };

  return harden({
    busy,
    /** Before a send to fae; call the result if the send failed. */
    sending: () => {
      expectedCopies += 1;
      changed();
      let undone = false;
      return () => {
        if (undone) return;
        undone = true;
        expectedCopies = Math.max(0, expectedCopies - 1);
        changed();
      };
    },
    /** The host's own copy of a message it sent to fae. */
    ownCopy: (messageId: string) => {
      expectedCopies = Math.max(0, expectedCopies - 1);
      if (!doneEarly.delete(messageId)) unanswered.add(messageId);
      changed();
    },
    /**
     * fae's turn for a message is over (its `turn-done` event): a turn that
     * ends by send, or whose answer could not be delivered, owes nothing more.
     */
    done: (messageId: string) => {
      if (!unanswered.delete(messageId) && expectedCopies > 0) doneEarly.add(messageId);
      changed();
    },
    /** Anything fae did (an event, a message): it is still working. */
    activity: () => {
      lastActivity = now();
    },
    /** fae has stopped (or failed): no answer will come. */
    faeStopped: () => {
      stopped = true;
      changed();
    },
    /** fae was started afresh: nothing is owed any more. */
    clear: () => {
      expectedCopies = 0;
      unanswered.clear();
      doneEarly.clear();
      stopped = false;
      changed();
    },
    /** Resolves once every message is finished, fae stopped, or it was quiet for quietMs. */
    whenSettled: (quietMs: number): Promise<Settled> =>
      new Promise<Settled>(resolve => {
        const check = () => {
          let outcome: Settled | undefined;
          if (!busy()) outcome = 'answered';
          else if (stopped) outcome = 'stopped';
          else if (now() - lastActivity >= quietMs) outcome = 'silent';
          if (outcome === undefined) return;
          clearInterval(timer);
          listeners.delete(check);
          resolve(outcome);
        };
        const timer = setInterval(check, pollMs);
        listeners.add(check);
        check();
      }),
  });
};
harden(makePendingAnswers);
export type PendingAnswers = ReturnType<typeof makePendingAnswers>;

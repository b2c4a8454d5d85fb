// The turns running now, by the number of the message each handles. Turns
// run concurrently, so what the built-ins report about a message (replied
// to, dismissed, answered by send) is kept on that message's own turn,
// never on whichever turn happens to be "current".

/** What fae knows about one running turn's message. */
export interface TurnState {
  readonly number: bigint;
  readonly correspondent: string;
  /** The model answered it with a built-in (reply, send, answering a request). */
  answered: boolean;
  /** The model dismissed it (or asked to, for after the turn). */
  dismissed: boolean;
  /** Why forgetConversation failed in this turn, to tell the sender. */
  forgetFailure: string | undefined;
}

export const makeTurnStates = () => {
  const running = new Map<bigint, TurnState>();
  return harden({
    /** A turn for message `number` begins. */
    open: (number: bigint, correspondent: string): TurnState => {
      const state: TurnState = { number, correspondent, answered: false, dismissed: false, forgetFailure: undefined };
      running.set(number, state);
      return state;
    },
    /** The turn is over: later reports about its message count for nothing. */
    close: (state: TurnState) => {
      if (running.get(state.number) === state) running.delete(state.number);
    },
    /** The running turn of message `number`, if any. */
    of: (number: bigint | undefined) => (number === undefined ? undefined : running.get(number)),
    /**
     * What the built-ins report, each kept on the turn of the message it
     * names (matched by number: a reply or send that lands after its turn,
     * from a slow daemon or a timed-out call, answers nothing handled now).
     */
    builtInHooks: harden({
      onDismiss: (number: bigint) => {
        const state = running.get(number);
        if (state !== undefined) state.dismissed = true;
      },
      // A message being answered is dismissed after its turn, so that fae's
      // own closing notice can still reply to it.
      deferDismiss: (number: bigint) => {
        const state = running.get(number);
        if (state === undefined) return false;
        state.dismissed = true;
        return true;
      },
      onReply: (number: bigint) => {
        const state = running.get(number);
        if (state !== undefined) state.answered = true;
      },
      onSend: (_recipient: readonly string[], forMessage: bigint | undefined) => {
        const state = forMessage === undefined ? undefined : running.get(forMessage);
        if (state !== undefined) state.answered = true;
      },
    }),
  });
};
harden(makeTurnStates);
export type TurnStates = ReturnType<typeof makeTurnStates>;

// Revocation by construction: a caretaker holds the way to its target and
// forgets it when revoked, so whatever forwards through it has nothing
// left to reach. A caretaker may stand on another (an attenuated copy on
// its tool, every tool on its server): revoking the lower one cuts off all
// that stand on it, and each is asked at every call, so a revocation takes
// effect at the next call.

export interface Caretaker<T> {
  /** The target, or a thrown error saying it was revoked. */
  readonly use: () => T;
  readonly revoke: () => void;
  readonly isRevoked: () => boolean;
}

export const makeCaretaker = <T>(reach: () => T, revokedReason: string): Caretaker<T> => {
  let held: (() => T) | undefined = reach;
  return harden({
    use: () => {
      if (held === undefined) throw Error(revokedReason);
      return held();
    },
    revoke: () => {
      held = undefined;
    },
    isRevoked: () => held === undefined,
  });
};
harden(makeCaretaker);

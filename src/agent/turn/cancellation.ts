// The daemon's context is a remote object: its whenCancelled() promise
// never fulfils and rejects with the reason when the caplet is cancelled.
// A Cancellation turns that into a promise that resolves with the reason
// (the shape Promise.race wants) and a flag that can be read at once.
import { E } from '@endo/far';
import type { CapletContext, Ref } from '../../daemon/endo-types.js';

export interface Cancellation {
  /** Resolves with the reason once the agent is cancelled; never rejects. */
  readonly promise: Promise<Error>;
  /** True once the cancellation has been seen. */
  isCancelled(): boolean;
}

/** A Cancellation that follows `reason`, for the context and for tests. */
export const makeCancellation = (reason: Promise<Error>): Cancellation => {
  let cancelled = false;
  const promise = reason.then(error => {
    cancelled = true;
    return error;
  });
  return harden({ promise, isCancelled: () => cancelled });
};
harden(makeCancellation);

export const whenCancelled = (context: Ref<CapletContext>): Cancellation =>
  makeCancellation(
    E(context)
      .whenCancelled()
      .then(
        () => Error('cancelled'),
        reason => (reason instanceof Error ? reason : Error(String(reason))),
      ),
  );
harden(whenCancelled);

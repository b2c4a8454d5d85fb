// Work nobody waits for (a dismissal, a note to the host, a retry) still
// has somewhere to fail to: a rejection that reaches no handler ends as an
// unhandled rejection, which in a daemon worker may take fae down with it.
// Every such promise goes through here, with what to do if it fails.

/** Lets `work` run on, nothing waiting for it; a rejection is handed to `onError`. */
export const inBackground = (work: PromiseLike<unknown> | undefined, onError: (error: unknown) => void): void => {
  Promise.resolve(work).catch(onError);
};
harden(inBackground);

/** For work that reports its own failures (a dismissal logs a refusal itself): nothing more to do. */
export const REPORTED_ALREADY = harden(() => {});

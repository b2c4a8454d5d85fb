// Bounding promises in time. A far tool or capability that never answers
// must not wedge the agent, so every such call is raced against a timer;
// a call fae may give up on for another reason (its turn was cancelled)
// is raced against an AbortSignal as well.

export class TimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimeoutError';
  }
}
harden(TimeoutError);

export interface GiveUpOptions {
  /** Give up after this many ms, with TimeoutError(describe()); never when omitted. */
  readonly timeoutMs?: number;
  readonly describe: () => string;
  /** Give up when it aborts, with its reason. */
  readonly signal?: AbortSignal;
  /** Told once when fae gives up (not when `promise` settles first). */
  readonly onGiveUp?: () => void;
  /**
   * Asked when the time is up: while it says yes (the call waits for
   * someone, not for its own work: the host's approval), the time starts
   * again rather than running out.
   */
  readonly extendWhile?: () => boolean;
}

/**
 * Settles like `promise`, or rejects once fae gives up on it: after
 * `timeoutMs`, or when `signal` aborts (at once if it already has). The
 * timer never keeps the process alive; timer and listener go when it
 * settles. A later rejection of `promise` is handled (ignored).
 */
export const unlessGivenUp = <T>(
  promise: PromiseLike<T>,
  { timeoutMs, describe, signal, onGiveUp, extendWhile }: GiveUpOptions,
): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stopWatching = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const giveUp = (reason: unknown) => {
      stopWatching();
      onGiveUp?.();
      reject(reason);
    };
    function onAbort() {
      giveUp(signal?.reason);
    }
    Promise.resolve(promise).then(
      value => {
        stopWatching();
        resolve(value);
      },
      error => {
        stopWatching();
        reject(error);
      },
    );
    if (signal?.aborted) {
      giveUp(signal.reason);
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    if (timeoutMs !== undefined) {
      const arm = () => {
        timer = setTimeout(() => (extendWhile?.() ? arm() : giveUp(new TimeoutError(describe()))), timeoutMs);
        timer.unref?.();
      };
      arm();
    }
  });
harden(unlessGivenUp);

/**
 * Settles like `promise`, or rejects with TimeoutError(describe()) after
 * `ms`. The timer never keeps the process alive and is cleared on settling.
 */
export const withTimeout = <T>(
  promise: PromiseLike<T>,
  ms: number,
  describe: () => string,
): Promise<T> => unlessGivenUp(promise, { timeoutMs: ms, describe });
harden(withTimeout);

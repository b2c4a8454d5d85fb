// Bounding promises in time. A far tool or capability that never answers
// must not wedge the agent, so every such call is raced against a timer.

export class TimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimeoutError';
  }
}
harden(TimeoutError);

/**
 * Settles like `promise`, or rejects with TimeoutError(describe()) after
 * `ms`. The timer never keeps the process alive and is cleared on settling.
 */
export const withTimeout = <T>(
  promise: PromiseLike<T>,
  ms: number,
  describe: () => string,
): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new TimeoutError(describe())), ms);
    timer.unref?.();
    Promise.resolve(promise).then(
      value => {
        clearTimeout(timer);
        resolve(value);
      },
      error => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
harden(withTimeout);

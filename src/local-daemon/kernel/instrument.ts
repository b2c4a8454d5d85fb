// Per-call latency and call counters for every guest/host/directory/
// iterator method, plus the daemon's "collect garbage after each call".
/**
 * Wraps a method. `holdsCollection: false` is for calls that may wait
 * indefinitely (iterator next, request), which must not hold off the
 * collection pass that runs once no other call is in flight.
 */
export type Instrument = <F extends (...args: never[]) => unknown>(
  name: string,
  fn: F,
  holdsCollection?: boolean,
) => F;

export interface Instrumentation {
  readonly instrument: Instrument;
  callCounts(): Readonly<Record<string, number>>;
  resetCallCounts(): void;
  setLatency(ms: number): void;
}

const delay = (ms: number) => new Promise<void>(resolve => setTimeout(resolve, ms));

/**
 * @param latencyMs initial latency added to every call
 * @param afterCall runs when the last call in flight settles (the daemon's
 *   collection pass); waiting for quiet means a formula made by one call
 *   is never collected before that call has bound its name
 */
export const makeInstrumentation = (latencyMs: number, afterCall: () => void): Instrumentation => {
  let latency = latencyMs;
  let counts: Record<string, number> = {};
  let inFlight = 0;

  const instrument = (<F extends (...args: never[]) => unknown>(
    name: string,
    fn: F,
    holdsCollection = true,
  ): F => {
    const wrapped = async (...args: Parameters<F>) => {
      counts[name] = (counts[name] ?? 0) + 1;
      if (holdsCollection) inFlight += 1;
      try {
        if (latency > 0) await delay(latency);
        return await fn(...args);
      } finally {
        if (holdsCollection) {
          inFlight -= 1;
          if (inFlight === 0) afterCall();
        }
      }
    };
    return wrapped as unknown as F;
  }) as Instrument;

  return harden({
    instrument,
    callCounts: () => harden({ ...counts }),
    resetCallCounts: () => {
      counts = {};
    },
    setLatency: (ms: number) => {
      if (!(Number.isFinite(ms) && ms >= 0)) {
        throw RangeError(`Latency must be a non-negative number of ms, not ${String(ms)}`);
      }
      latency = ms;
    },
  });
};
harden(makeInstrumentation);

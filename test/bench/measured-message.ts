// The measurements of the isolated fae's thread (isolated-fae-worker.ts)
// go to the bench beside CapTP, as a message of their own on the thread's
// port, not as the answer to the call: CapTP 4.5.1 keeps every answer it
// gave in the answering thread for good, so thousands of timings would
// stay in fae's thread and be read as fae's heap.

/**
 * Milliseconds per message: in all, those fae's thread was busy, and of
 * those, the ones it ran on a CPU and waited for one (thread-cpu.ts; empty
 * where the system does not tell them).
 */
export interface Measured {
  readonly times: readonly number[];
  readonly busy: readonly number[];
  readonly running: readonly number[];
  readonly waiting: readonly number[];
}

const TYPE = 'fae-bench-measured';

export const measuredMessage = (measured: Measured) => ({ type: TYPE, ...measured });

/** The measurements `message` carries; undefined when it is a CapTP message. */
export const measuredIn = (message: unknown): Measured | undefined =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === TYPE
    ? (message as Measured)
    : undefined;

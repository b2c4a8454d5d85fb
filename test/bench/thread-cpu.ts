// The time the calling thread spent on a CPU, and waiting for one, as
// Linux counts it (/proc/thread-self/schedstat, in nanoseconds). A thread's
// busy time (performance.eventLoopUtilization) also counts the time it was
// ready but the machine ran others, the daemon's thread among them: on a
// loaded machine that swells, and it is not the thread's own work.
import { readFileSync } from 'node:fs';

export interface ThreadTimes {
  /** Milliseconds on a CPU. */
  readonly running: number;
  /** Milliseconds ready to run, waiting for a CPU. */
  readonly waiting: number;
}

const SCHEDSTAT = '/proc/thread-self/schedstat';

/** The calling thread's times so far; undefined where the system does not tell them. */
export const threadTimes = (): ThreadTimes | undefined => {
  let fields: string[];
  try {
    fields = readFileSync(SCHEDSTAT, 'utf8').trim().split(' ');
  } catch {
    return undefined;
  }
  const [running, waiting] = fields.map(Number);
  return Number.isFinite(running) && Number.isFinite(waiting) ? { running: running / 1e6, waiting: waiting / 1e6 } : undefined;
};

// Looking at processes a test started through a tool: whether they still
// run, and waiting (boundedly) for them to end.
import fs from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * Whether `pid` still runs. A zombie (exited, not yet reaped) does not: a
 * killed shell's orphans are reaped by init, which may take its time.
 */
export const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/<pid>/stat is "pid (comm) S …", S being the state (Linux only).
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true;
  }
};

/**
 * The pids still running after they were given up to `boundMs` to end:
 * being stopped is a signal away, but a busy machine may take a while.
 */
export const stillRunningAfter = async (pids: readonly number[], boundMs = 10_000): Promise<number[]> => {
  for (let waited = 0; waited < boundMs && pids.some(isRunning); waited += 100) await delay(100);
  return pids.filter(isRunning);
};

/** The pids a command wrote to `file`, one a line. */
export const readPids = (file: string): number[] =>
  fs.readFileSync(file, 'utf8').trim().split('\n').map(Number);

/** Kills what is left of `pids`, so a failing test leaves nothing behind. */
export const killSurvivors = (pids: readonly number[]) => {
  for (const pid of pids) {
    if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  }
};

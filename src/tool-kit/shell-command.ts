// Runs one shell command for the runCommand tool, within bounds the model
// cannot lift: a timeout (or the caller's abort) after which the whole
// process group is stopped (a shell's children included), stdin closed so
// nothing waits for input, and output kept to a fixed number of characters
// however much is printed.
import { spawn } from 'node:child_process';
import process from 'node:process';
import { StringDecoder } from 'node:string_decoder';
import { cutMiddle } from './cut-middle.js';

export interface ShellCommandOptions {
  readonly command: string;
  readonly cwd: string;
  readonly timeoutMs: number;
  /** Characters kept from stdout and stderr together. */
  readonly outputCap: number;
  /** Aborting it stops the command as its timeout does. */
  readonly signal?: AbortSignal;
}

export interface CapturedOutput {
  /** The text kept (head and tail when it was longer than its share). */
  readonly text: string;
  /** How many characters the command printed in all. */
  readonly total: number;
}

export interface ShellCommandResult {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  /** Stopped because the signal aborted. */
  readonly cancelled: boolean;
  readonly stdout: CapturedOutput;
  readonly stderr: CapturedOutput;
}

// After the shell exits, a background child may still hold our pipes open;
// we wait this long for them to close, then end the group.
const PIPE_GRACE_MS = 1_000;
// A group told to stop (SIGTERM) has this long to clean up before SIGKILL.
export const KILL_GRACE_MS = 2_000;
// Keeps the first `cap` characters and a rolling tail of the last `cap`,
// so memory stays bounded whatever the command prints.
const makeCollector = (cap: number) => {
  const decoder = new StringDecoder('utf8');
  let head = '';
  let tail = '';
  let total = 0;
  const add = (text: string) => {
    total += text.length;
    const room = cap - head.length;
    if (room > 0) {
      head += text.slice(0, room);
      text = text.slice(room);
    }
    if (text.length > 0) tail = (tail + text).slice(-cap);
  };
  return {
    write: (chunk: Buffer) => add(decoder.write(chunk)),
    end: () => add(decoder.end()),
    /** The output cut to `share` characters, with a note of what was left out. */
    take: (share: number): CapturedOutput => {
      const whole = head + tail;
      return harden({ text: cutMiddle(whole, share, total), total });
    },
    get length() {
      return total;
    },
  };
};

const signalGroup = (pid: number, signal: NodeJS.Signals) => {
  try {
    // A negative pid addresses the process group the detached shell leads.
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
};

/**
 * Stops every process of the group: SIGTERM, so each may clean up, then
 * SIGKILL after KILL_GRACE_MS for any that ignored it or are still
 * closing. The group outlives its shell as long as one member lives, so
 * the SIGKILL is sent whether or not the shell has exited by then.
 */
const stopGroup = (pid: number | undefined) => {
  if (pid === undefined) return;
  signalGroup(pid, 'SIGTERM');
  setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS).unref();
};

export const runShellCommand = ({
  command,
  cwd,
  timeoutMs,
  outputCap,
  signal,
}: ShellCommandOptions): Promise<ShellCommandResult> =>
  new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], {
      cwd,
      // Its own process group, so that a timeout can kill everything the
      // shell started, not only the shell.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout = makeCollector(outputCap);
    const stderr = makeCollector(outputCap);
    child.stdout.on('data', (chunk: Buffer) => stdout.write(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.write(chunk));

    let timedOut = false;
    let cancelled = false;
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      stopGroup(child.pid);
    }, timeoutMs);
    const onAbort = () => {
      cancelled = true;
      stopGroup(child.pid);
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    const stopWatching = () => {
      clearTimeout(timer);
      if (graceTimer) clearTimeout(graceTimer);
      signal?.removeEventListener('abort', onAbort);
    };

    child.on('exit', () => {
      graceTimer = setTimeout(() => stopGroup(child.pid), PIPE_GRACE_MS);
    });
    child.on('error', error => {
      stopWatching();
      reject(error);
    });
    child.on('close', (exitCode, exitSignal) => {
      stopWatching();
      stdout.end();
      stderr.end();
      // stderr keeps at least a fifth of the cap when stdout would fill it.
      const stderrShare = Math.min(
        stderr.length,
        Math.max(outputCap - stdout.length, Math.floor(outputCap / 5)),
      );
      resolve(
        harden({
          exitCode,
          signal: exitSignal,
          timedOut,
          cancelled,
          stdout: stdout.take(outputCap - stderrShare),
          stderr: stderr.take(stderrShare),
        }),
      );
    });
  });
harden(runShellCommand);

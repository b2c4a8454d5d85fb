// FaeTool caplet: run a shell command with the root (FAE_CWD) as its
// working directory. It is NOT confined to the root: it is a shell with the
// worker's authority (upstream defect F7), and its help says so, so that a
// host grants it knowingly. What it does bound is time and output.
import { q } from '@endo/errors';
import { type CapletOptions, makeFaeTool } from '../src/tool-kit/make-fae-tool.js';
import { fsRootFromEnv } from '../src/tool-kit/fs-root.js';
import { type CapturedOutput, KILL_GRACE_MS, runShellCommand } from '../src/tool-kit/shell-command.js';

export const DEFAULT_TIMEOUT_MS = 30_000;
/** The most the model may ask for, whatever it asks for. */
export const MAX_TIMEOUT_MS = 10 * 60_000;
export const MAX_OUTPUT_CHARACTERS = 50_000;

const section = (label: string, output: CapturedOutput) =>
  output.total === 0
    ? `${label}: (empty)`
    : `${label}${output.text.length < output.total ? ` (${output.total} characters in all, cut to ${MAX_OUTPUT_CHARACTERS} together)` : ''}:\n${output.text}`;

export const make = (_powers: unknown, _context: unknown, { env }: CapletOptions = {}) => {
  const fsRoot = fsRootFromEnv(env);
  return makeFaeTool({
    name: 'runCommand',
    description: `Execute a shell command (/bin/sh -c) in ${fsRoot.root}. Use it for npm scripts, git, linters, tests and other CLI tools. stdin is closed, so interactive commands fail. Reports the exit code, stdout and stderr (at most ${MAX_OUTPUT_CHARACTERS} characters). Times out after 30 s unless timeout says otherwise (at most 10 minutes).`,
    parameters: {
      command: {
        type: 'string',
        description: 'The shell command to execute (e.g. "npm test", "git status").',
      },
      timeout: {
        type: 'number',
        description: `Maximum execution time in milliseconds. Defaults to ${DEFAULT_TIMEOUT_MS}; at most ${MAX_TIMEOUT_MS}.`,
      },
    },
    required: ['command'],
    help: [
      `Runs shell commands with ${fsRoot.root} as the working directory.`,
      "This is a shell with the worker's full authority: it can read and write any file the worker's user can, use the network, start programs, and it inherits the worker's environment variables. The root is only its starting directory, not a boundary. Grant it only to an agent you would trust with that shell.",
      `Each command is stopped after 30 s by default and 10 minutes at most, or as soon as its caller cancels the call (its whole process group gets SIGTERM, then SIGKILL ${KILL_GRACE_MS / 1000} s later), runs with stdin closed, and reports at most ${MAX_OUTPUT_CHARACTERS} characters of output.`,
      fsRoot.origin === 'worker-cwd'
        ? "FAE_CWD was not set when this tool was made, so it runs in the worker's working directory."
        : '',
    ]
      .filter(Boolean)
      .join(' '),
    // fae cancels a call it stops waiting for: the command is stopped then.
    cancellable: true,
    // Runs or writes something: the host approves each call (unless it says otherwise).
    needsApproval: true,
    execute: async ({ command, timeout }, { signal }) => {
      if (command.trim() === '') {
        throw Error('"command" is empty; give a shell command to run');
      }
      if (timeout !== undefined && timeout <= 0) {
        throw Error(
          `"timeout" must be a positive number of milliseconds, not ${q(timeout)}`,
        );
      }
      const asked = timeout ?? DEFAULT_TIMEOUT_MS;
      const timeoutMs = Math.min(asked, MAX_TIMEOUT_MS);
      const result = await runShellCommand({
        command,
        cwd: fsRoot.root,
        timeoutMs,
        outputCap: MAX_OUTPUT_CHARACTERS,
        signal,
      });
      const lines = [];
      if (asked > MAX_TIMEOUT_MS) {
        lines.push(`note: the timeout was lowered from ${asked} ms to the ceiling of ${MAX_TIMEOUT_MS} ms`);
      }
      if (result.timedOut) {
        lines.push(`timed out after ${timeoutMs} ms: the command and its process group were killed`);
      } else if (result.cancelled) {
        lines.push('cancelled by the caller: the command and its process group were stopped');
      } else if (result.exitCode !== null) {
        lines.push(`exit code: ${result.exitCode}`);
      } else {
        lines.push(`killed by signal ${result.signal}`);
      }
      lines.push(section('stdout', result.stdout), section('stderr', result.stderr));
      return lines.join('\n');
    },
  });
};
harden(make);

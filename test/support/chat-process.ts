// Runs the chat's entry point as `npm start` does, as a child process with
// piped stdin/stdout/stderr, from the repository root:
//
//   node --import @endo/init dist/src/chat/main.js --dialect <FAE_TEST_DIALECT> [args]
//
//   const chat = startChat({ env: server.env(), args: ['--root', dir] });
//   chat.type('hello', '/give greet');   // lines on stdin
//   chat.end();                          // end of input
//   const { code, stdout, stderr } = await chat.exited;
//   await chat.waitForOutput(/Fae agent ready/);   // stdout so far, or later
//
// The child's environment is this process's minus every LAL_*, FAE_* and
// INIT_CWD, plus `env`: tests never depend on the machine's settings. A
// child still running after `timeoutMs` is killed, and `exited` reports it
// (timedOut: true), so no test can hang on it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dialect } from './daemon.js';

/** The repository root: dist/test/support/ is three levels below it. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const CHAT_ENTRY = 'dist/src/chat/main.js';

export interface ChatExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  /** Wall time from spawn to exit, in ms. */
  readonly elapsedMs: number;
}

export interface ChatOptions {
  readonly env?: Readonly<Record<string, string>>;
  readonly args?: readonly string[];
  readonly timeoutMs?: number;
}

const cleanEnv = (extra: Readonly<Record<string, string>>) => {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || /^(LAL_|FAE_)/.test(name) || name === 'INIT_CWD') continue;
    env[name] = value;
  }
  return { ...env, ...extra };
};

export const startChat = ({ env = {}, args = [], timeoutMs = 90_000 }: ChatOptions = {}) => {
  const started = Date.now();
  // The chat's local daemon speaks the dialect the tests run under
  // (FAE_TEST_DIALECT), unless a test chooses one.
  const dialectArgs = args.some(arg => arg.startsWith('--dialect')) ? [] : ['--dialect', dialect];
  const child = spawn(process.execPath, ['--import', '@endo/init', CHAT_ENTRY, ...dialectArgs, ...args], {
    cwd: REPO_ROOT,
    env: cleanEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const watchers = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    for (const watcher of watchers) watcher();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  // The child may leave before reading everything it was given.
  child.stdin.on('error', () => {});
  let timedOut = false;
  let ended = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  const exited = new Promise<ChatExit>(resolve => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      ended = true;
      for (const watcher of watchers) watcher();
      resolve({ code, signal, stdout, stderr, timedOut, elapsedMs: Date.now() - started });
    });
  });

  return {
    child,
    exited,
    /** Writes each line, with its newline, to the chat's stdin. */
    type: (...lines: string[]) => {
      child.stdin.write(lines.map(line => `${line}\n`).join(''));
    },
    /** Ends the chat's input (as Ctrl-D, or the end of a piped file). */
    end: () => {
      child.stdin.end();
    },
    stdout: () => stdout,
    stderr: () => stderr,
    /** Resolves once stdout matches; rejects if the chat exits first. */
    waitForOutput: (pattern: RegExp) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (pattern.test(stdout)) {
            watchers.delete(check);
            resolve();
          } else if (ended) {
            watchers.delete(check);
            reject(Error(`The chat exited before printing ${pattern}; stdout:\n${stdout}\nstderr:\n${stderr}`));
          }
        };
        watchers.add(check);
        check();
      }),
  };
};

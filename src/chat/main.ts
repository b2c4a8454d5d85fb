// src/chat/: the terminal chat behind `npm start`, on src/local-daemon/. It
// imports that, src/provisioning and the layers below; nothing imports it.
//
// `npm start`: a terminal chat with fae, which runs on an in-process local
// daemon whose root host is the user (HOST). Started as
//
//   node --import @endo/init dist/src/chat/main.js [--root DIR] [--dialect feb|may|aug] [--verbose]
//
// so the realm is locked down by Node's preload, exactly as a daemon worker
// is; nothing here imports ses or @endo/init.
//
// Order of events: read and check the settings (a mistake exits 1 with the
// reason); ask the LLM server whether it is there (if not, exit 1 with one
// paragraph on what was tried and how to choose an LLM); provision the
// local daemon as the setup scripts would; then read lines, one at a time,
// in order. End of input waits (bounded) for fae to answer what was typed;
// /quit, Ctrl-C and SIGTERM leave at once. Leaving cancels fae through its
// context and stops the daemon; the exit code is then 0.
import process from 'node:process';
import readline from 'node:readline';
import { makePromiseKit } from '@endo/promise-kit';
import { describeError } from './describe-error.js';
import { makeEnvRedactor } from '../logging/redact.js';
import type { Env } from '../provisioning/env.js';
import { resolveAuthToken } from '../provisioning/auth-token.js';
import { quietBound, readSettings, type Settings } from './settings.js';
import { parseChatOptions, USAGE, type ChatOptions } from './options.js';
import { checkLlmReachable } from './reachability.js';
import { installQuietConsole } from './quiet-console.js';
import { makeProgress } from './progress.js';
import { makePendingAnswers } from './pending.js';
import { watchFaeEvents } from './fae-follower.js';
import { showRevision } from './mail-feed.js';
import { makeScreen } from './screen.js';
import { startChatSession, type ChatSession } from './session.js';
import { runLine } from './commands.js';
import { showApprovals } from './approvals.js';
import { inBackground } from '../background.js';

/** Why fae's requests are denied when the chat's input ends. */
const LEFT = 'the host left the chat';

/** Leaving must not hang on a daemon that does not stop. */
const STOP_TIMEOUT_MS = 5_000;

const withTimeout = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([
    promise,
    new Promise<void>(resolve => {
      setTimeout(resolve, ms).unref();
    }),
  ]);

/** What the chat starts from, once its options and settings are read and the LLM is reachable. */
interface ChatStart {
  readonly options: ChatOptions;
  readonly settings: Settings;
  readonly redact: (text: string) => string;
  /** Said once the screen is up: the LLM answered, but with a caveat. */
  readonly warning?: string;
}

/** Reads the command line and the settings, and checks the LLM; the exit code when the chat cannot start. */
const prepareChat = async (args: readonly string[], givenEnv: Env): Promise<ChatStart | number> => {
  let redact = makeEnvRedactor(givenEnv);
  const fail = (text: string) => {
    process.stderr.write(`${redact(text)}\n`);
    return 1;
  };
  let options: ChatOptions;
  try {
    options = parseChatOptions(args);
  } catch (error) {
    process.stderr.write(`${describeError(error)}\n\n${USAGE}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let settings: Settings;
  try {
    // The API key may come from a file (LAL_AUTH_TOKEN_FILE), as for the setup scripts.
    const env = resolveAuthToken(givenEnv, { argv: [], warn: text => process.stderr.write(`${text}\n`) });
    redact = makeEnvRedactor(env);
    settings = readSettings(env, options);
  } catch (error) {
    return fail(`fae cannot start: ${describeError(error)}`);
  }
  const reachability = await checkLlmReachable(settings.provider);
  if (!reachability.ok) return fail(reachability.paragraph);
  return { options, settings, redact, warning: reachability.warning };
};

/** Hands each typed line to the chat's commands, one after another in the order typed; at the end of input, leaves once they are done. */
const serveLines = (
  input: readline.Interface,
  { context, isLeaving, onClose, leave }: {
    readonly context: Parameters<typeof runLine>[1];
    readonly isLeaving: () => boolean;
    readonly onClose: () => void;
    readonly leave: (drain: boolean) => Promise<number>;
  },
) => {
  let queue: Promise<void> = Promise.resolve();
  input.on('line', line => {
    if (isLeaving()) return;
    queue = queue.then(() => runLine(line, context));
  });
  input.on('close', () => {
    onClose();
    inBackground(queue.then(() => leave(true)), error => process.stderr.write(`fae chat: ${describeError(error)}\n`));
  });
};

/**
 * Whether fae stopped on its own (its startup failed, say): then the user
 * is told, and the chat stops waiting for answers. A stop the chat caused
 * (reset, leaving) is no news.
 */
const faeAliveCheck =
  ({ session, isLeaving, pending, screen }: {
    readonly session: () => ChatSession | undefined;
    readonly isLeaving: () => boolean;
    readonly pending: ReturnType<typeof makePendingAnswers>;
    readonly screen: ReturnType<typeof makeScreen>;
  }) =>
  () => {
    if (isLeaving()) return;
    session()
      ?.faeStatus()
      .then(status => {
        if (status === undefined || isLeaving()) return;
        if (status.state !== 'failed' && status.state !== 'stopped') return;
        pending.faeStopped();
        screen.error(`fae has stopped${status.lastError ? `: ${status.lastError}` : ''}; /reset starts it again`);
      })
      .catch(() => {});
  };

/**
 * Leaves the chat: fae's requests still waiting for approval are denied,
 * its answers waited for when `drain` asks (until it has been quiet too
 * long), and fae stopped, bounded.
 */
const leaveChat = async (
  { chat, screen, pending, settings, interactive, closeInput }: {
    chat: ChatSession;
    screen: ReturnType<typeof makeScreen>;
    pending: ReturnType<typeof makePendingAnswers>;
    settings: Settings;
    interactive: boolean;
    closeInput: () => void;
  },
  drain: boolean,
) => {
  closeInput();
  if (chat.approvals.waiting().length > 0) {
    screen.note("(your input has ended: fae's requests still waiting for your approval are denied)");
    await chat.approvals.denyAll(LEFT);
  }
  if (drain && pending.busy()) {
    if (interactive) screen.note('(waiting for fae to answer; Ctrl-C leaves now)');
    const quietMs = quietBound(settings);
    const outcome = await pending.whenSettled(quietMs);
    if (outcome === 'silent') {
      screen.error(`(stopped waiting: fae said nothing for ${Math.round(quietMs / 1000)} s)`);
    }
  }
  screen.detach();
  // The quiet console stays: fae may log while it winds down, and the
  // process exits right after.
  await withTimeout(chat.stop(), STOP_TIMEOUT_MS);
  return 0;
};

const runChat = async (args: readonly string[], givenEnv: Env): Promise<number> => {
  const prepared = await prepareChat(args, givenEnv);
  if (typeof prepared === 'number') return prepared;
  const { options, settings, redact } = prepared;
  const fail = (text: string) => {
    process.stderr.write(`${redact(text)}\n`);
    return 1;
  };

  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  const screen = makeScreen({
    output: process.stdout,
    errors: process.stderr,
    interactive,
    verbose: options.verbose,
    redact,
  });
  if (prepared.warning !== undefined) screen.error(prepared.warning);

  const progress = makeProgress(screen.status);
  const pending = makePendingAnswers({ onBusyChange: progress.setBusy });
  let session: ChatSession | undefined;
  let leaving: Promise<number> | undefined;

  const checkFaeAlive = faeAliveCheck({ session: () => session, isLeaving: () => leaving !== undefined, pending, screen });
  // fae's log lines are only shown (with --verbose): what the chat knows
  // of fae comes from its events and its mail.
  const restoreConsole = installQuietConsole(line => screen.log(line));

  // Ctrl-C before the chat is up: nothing to wind down but the daemon.
  let interruptedEarly = false;
  const onEarlySignal = () => {
    interruptedEarly = true;
  };
  process.once('SIGINT', onEarlySignal);
  try {
    session = await startChatSession({
      dialect: options.dialect,
      config: settings.setup,
      root: settings.root,
      pending,
      onMail: showRevision({ screen, progress, pending }),
      // After a gap in the events, fae's status says whether it still runs.
      onFaeEvent: watchFaeEvents({ progress, pending, resync: checkFaeAlive }),
      onFaeNews: checkFaeAlive,
      onFollowError: error => screen.error(`Your inbox can no longer be followed: ${describeError(error)}`),
      // fae asks before it acts: the request is shown, and the prompt asks for the decision.
      onApprovals: showApprovals(screen, { leaving: () => leaving !== undefined, approvals: () => session?.approvals, reason: LEFT }),
    });
  } catch (error) {
    restoreConsole();
    return fail(`fae could not be started on the local host: ${describeError(error)}`);
  } finally {
    process.removeListener('SIGINT', onEarlySignal);
  }
  const chat = session;
  // fae's first start is over (provisioning waits for it): did it fail?
  checkFaeAlive();

  const input = readline.createInterface({
    input: process.stdin,
    output: interactive ? process.stdout : undefined,
    terminal: interactive,
  });
  let inputClosed = false;
  const closeInput = () => {
    if (inputClosed) return;
    inputClosed = true;
    input.close();
  };

  const finished = makePromiseKit<number>();
  const couldNotLeave = (error: unknown) => screen.note(`(could not stop cleanly: ${describeError(error)})`);
  const leave = (drain: boolean): Promise<number> => {
    if (leaving !== undefined) return leaving;
    leaving = leaveChat({ chat, screen, pending, settings, interactive, closeInput }, drain);
    leaving.then(finished.resolve, finished.reject);
    return leaving;
  };

  // Ctrl-C, SIGTERM: leave now. Again while waiting for answers: stop waiting.
  const onSignal = () => {
    if (leaving === undefined) inBackground(leave(false), couldNotLeave);
    else pending.faeStopped();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  input.on('SIGINT', onSignal);

  screen.note(
    `fae is running on a local Endo host (${options.dialect} dialect) with ${settings.setup.summary}; ` +
      `its filesystem tools work in ${settings.root}. Type a message, or /help for commands.`,
  );
  screen.attach(input);

  serveLines(input, {
    context: harden({
      session: chat,
      screen,
      quit: async () => {
        inBackground(leave(false), couldNotLeave);
      },
    }),
    isLeaving: () => leaving !== undefined,
    onClose: () => {
      inputClosed = true;
    },
    leave,
  });
  if (interruptedEarly) inBackground(leave(false), couldNotLeave);
  return finished.promise;
};
harden(runChat);

runChat(process.argv.slice(2), process.env).then(
  code => process.exit(code),
  error => {
    process.stderr.write(`${makeEnvRedactor(process.env)(`fae chat failed: ${describeError(error)}`)}\n`);
    process.exit(1);
  },
);

// Everything the chat shows. The conversation (fae's messages and the
// chat's own notes) goes to stdout; errors, and fae's log lines with
// --verbose, go to stderr. On a terminal the input line is a readline
// prompt that also carries the status ("⠋ fae is calling greet"), redrawn
// around every message so typing is never interrupted. On a pipe there is
// no prompt and no spinner: each tool call is written as a plain line.
import readline from 'node:readline';
import type { Redact } from '../logging/redact.js';

const SPINNER = harden(['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']);
const SPIN_MS = 100;
const IDLE_PROMPT = 'you › ';

export interface ScreenOptions {
  readonly output: NodeJS.WriteStream;
  readonly errors: NodeJS.WriteStream;
  /** A terminal: draw a prompt and a spinner. */
  readonly interactive: boolean;
  readonly verbose: boolean;
  /** Applied to every line written, so no secret is ever shown. */
  readonly redact: Redact;
}

export const makeScreen = ({ output, errors, interactive, verbose, redact }: ScreenOptions) => {
  let prompt: readline.Interface | undefined;
  let status: string | undefined;
  /** What the prompt asks (fae waits for an approval), if anything. */
  let question: string | undefined;
  let frame = 0;
  let spinner: ReturnType<typeof setInterval> | undefined;

  const promptText = () => {
    const asking = question === undefined ? IDLE_PROMPT : `${question} › `;
    // One ellipsis, whatever the status ends with ("Working on it…", "…, 42%.").
    return status === undefined ? asking : `${SPINNER[frame]} ${status.replace(/[.…]+$/, '')}… ${asking}`;
  };

  const redraw = () => {
    if (prompt === undefined) return;
    prompt.setPrompt(promptText());
    prompt.prompt(true);
  };

  /** Writes whole lines above the prompt line, then puts the prompt back. */
  const write = (stream: NodeJS.WriteStream, text: string) => {
    const lines = `${redact(text)}\n`;
    if (prompt !== undefined) {
      readline.clearLine(output, 0);
      readline.cursorTo(output, 0);
    }
    stream.write(lines);
    redraw();
  };

  const detach = () => {
    if (spinner !== undefined) clearInterval(spinner);
    spinner = undefined;
    if (prompt !== undefined) {
      readline.clearLine(output, 0);
      readline.cursorTo(output, 0);
    }
    prompt = undefined;
  };

  return harden({
    interactive,
    /** Until it closes, keep this prompt drawn below the conversation. */
    attach: (rl: readline.Interface) => {
      if (!interactive) return;
      prompt = rl;
      rl.once('close', detach);
      redraw();
    },
    detach,
    /** A message: "fae: text", continuation lines indented under the text. */
    mail: (from: string, text: string) => {
      const label = `${from}: `;
      const body = text.split('\n').join(`\n${' '.repeat(label.length)}`);
      write(output, `${label}${body}`);
    },
    /** The chat's own remarks: command output, state changes. */
    note: (text: string) => write(output, text),
    /** Something went wrong: always shown, on stderr. */
    error: (text: string) => write(errors, text),
    /** One of fae's log lines, or other library chatter: only with --verbose. */
    log: (line: string) => {
      if (verbose) write(errors, line);
    },
    /** What the prompt asks now (a decision fae waits for); undefined: nothing. */
    question: (text: string | undefined) => {
      question = text;
      redraw();
    },
    /** What fae is doing now; undefined when it is idle. */
    status: (text: string | undefined) => {
      status = text;
      if (!interactive) {
        // On a pipe only tool calls are worth a line; "thinking" is implied.
        if (text !== undefined && text.startsWith('fae is calling ')) write(output, `… ${text}`);
        return;
      }
      if (prompt === undefined) return;
      if (text !== undefined && spinner === undefined) {
        spinner = setInterval(() => {
          frame = (frame + 1) % SPINNER.length;
          redraw();
        }, SPIN_MS);
        spinner.unref();
      } else if (text === undefined && spinner !== undefined) {
        clearInterval(spinner);
        spinner = undefined;
      }
      redraw();
    },
  });
};
harden(makeScreen);
export type Screen = ReturnType<typeof makeScreen>;

// The chat's command line: `npm start -- [--root DIR] [--dialect D] [--verbose]`.
// Everything else about fae is configured through the environment (LAL_*,
// FAE_*), exactly as for the daemon.
import { q } from '@endo/errors';
import type { Dialect } from '../daemon/dialect.js';

/**
 * The generation of daemon the chat's local host speaks unless --dialect
 * says otherwise: August's, the newest, where upstream fae and genie live
 * and the one with the most to get right (stream readers, locators with
 * path syntax, edited messages). --dialect feb gives endojs/endo master's.
 */
export const DEFAULT_CHAT_DIALECT: Dialect = 'aug';

const DIALECTS: readonly Dialect[] = harden(['feb', 'may', 'aug']);

const readDialect = (value: string | undefined): Dialect => {
  const dialect = DIALECTS.find(known => known === value);
  if (dialect === undefined) {
    throw Error(`--dialect needs one of feb, may or aug, not ${q(value ?? '')}`);
  }
  return dialect;
};

export interface ChatOptions {
  /** --root DIR: the filesystem tools' root; overrides FAE_CWD. */
  readonly root: string | undefined;
  /** --dialect feb|may|aug: which daemon generation the local host speaks. */
  readonly dialect: Dialect;
  /** --verbose: show fae's log lines (on stderr), apart from the conversation. */
  readonly verbose: boolean;
  /** --help: print the usage and exit. */
  readonly help: boolean;
}

export const USAGE = `Usage: npm start -- [--root DIR] [--dialect feb|may|aug] [--verbose]

Opens a terminal chat with fae, running on an in-process Endo host; you are
its host (HOST, or @host on the newer daemons).
  --root DIR      the directory the filesystem tools work in (default: FAE_CWD,
                  or the directory you started from)
  --dialect D     the daemon generation the local host speaks: feb (February
                  2026, master), may (May 2026, branch llm) or aug (August
                  2026); default ${DEFAULT_CHAT_DIALECT}
  --verbose       show fae's log lines on stderr
  --help          show this text

The LLM is chosen with LAL_HOST, LAL_MODEL, LAL_AUTH_TOKEN and LAL_PROVIDER
(default: Ollama at http://localhost:11434).`;

/** Parses the arguments after the script name; throws on anything unknown. */
export const parseChatOptions = (args: readonly string[]): ChatOptions => {
  let root: string | undefined;
  let dialect: Dialect = DEFAULT_CHAT_DIALECT;
  let verbose = false;
  let help = false;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    if (arg === '--verbose' || arg === '-v') {
      verbose = true;
    } else if (arg === '--help' || arg === '-h') {
      help = true;
    } else if (arg === '--root') {
      const value = args[i + 1];
      if (value === undefined || value.startsWith('--')) {
        throw Error('--root needs a directory, as in "--root ./my-project"');
      }
      root = value;
      i += 1;
    } else if (arg === '--dialect') {
      dialect = readDialect(args[i + 1]);
      i += 1;
    } else if (arg.startsWith('--dialect=')) {
      dialect = readDialect(arg.slice('--dialect='.length));
    } else if (arg.startsWith('--root=')) {
      root = arg.slice('--root='.length);
      if (root === '') throw Error('--root needs a directory, as in "--root=./my-project"');
    } else {
      throw Error(`Unknown argument ${q(arg)}; the chat takes --root DIR, --dialect feb|may|aug and --verbose`);
    }
  }
  return harden({ root, dialect, verbose, help });
};
harden(parseChatOptions);

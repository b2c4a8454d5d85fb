// The chat's command line: `npm start -- [--root DIR] [--verbose]`.
// Everything else about fae is configured through the environment (LAL_*,
// FAE_*), exactly as for the daemon.
import { q } from '@endo/errors';

export interface ChatOptions {
  /** --root DIR: the filesystem tools' root; overrides FAE_CWD. */
  readonly root: string | undefined;
  /** --verbose: show fae's log lines (on stderr), apart from the conversation. */
  readonly verbose: boolean;
  /** --help: print the usage and exit. */
  readonly help: boolean;
}

export const USAGE = `Usage: npm start -- [--root DIR] [--verbose]

Opens a terminal chat with fae, running on an in-process Endo host; you are HOST.
  --root DIR   the directory the filesystem tools work in (default: FAE_CWD,
               or the directory you started from)
  --verbose    show fae's log lines on stderr
  --help       show this text

The LLM is chosen with LAL_HOST, LAL_MODEL, LAL_AUTH_TOKEN and LAL_PROVIDER
(default: Ollama at http://localhost:11434).`;

/** Parses the arguments after the script name; throws on anything unknown. */
export const parseChatOptions = (args: readonly string[]): ChatOptions => {
  let root: string | undefined;
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
    } else if (arg.startsWith('--root=')) {
      root = arg.slice('--root='.length);
      if (root === '') throw Error('--root needs a directory, as in "--root=./my-project"');
    } else {
      throw Error(`Unknown argument ${q(arg)}; the chat takes --root DIR and --verbose`);
    }
  }
  return harden({ root, verbose, help });
};
harden(parseChatOptions);

// Where a setup script finds the API key, without it ending up where others
// can read it. LAL_AUTH_TOKEN may come from the environment
// (`LAL_AUTH_TOKEN=… npm run setup`) or from a file named by
// LAL_AUTH_TOKEN_FILE, which the script reads here; either way fae's caplet
// receives it as LAL_AUTH_TOKEN, as before. A token given on the command
// line (`-E LAL_AUTH_TOKEN=…`, which `endo run` copies into the script's
// process.env) still works, but outlives the run: npm echoes the command
// and keeps it in its debug log, a shell keeps it in its history. The
// script says so, without the token, and points at LAL_AUTH_TOKEN_FILE.
import path from 'node:path';
import process from 'node:process';
import { q } from '@endo/errors';
import { invocationDirectory } from './provisioning.js';
import type { Env } from './env.js';
import { readSettingFile } from './setting-file.js';

const TOKEN = 'LAL_AUTH_TOKEN';
const TOKEN_FILE = 'LAL_AUTH_TOKEN_FILE';

/** How the script was run, beyond its environment. */
export interface SetupInvocation {
  /** The CLI process's command line (process.argv), which holds any -E pairs. */
  readonly argv: readonly string[];
  /** Where a warning for the user goes. */
  readonly warn: (text: string) => void;
}

/** The invocation of the running `endo run` process; warnings go to stderr. */
export const processInvocation = (): SetupInvocation =>
  harden({
    argv: [...process.argv],
    warn: (text: string) => {
      process.stderr.write(`${text}\n`);
    },
  });
harden(processInvocation);

/** The values given to `name` by -E pairs (`-E K=V`, `-EK=V`, `--env K=V`, `--env=K=V`). */
const commandLineValues = (argv: readonly string[], name: string): string[] => {
  const values: string[] = [];
  argv.forEach((arg, index) => {
    let pair: string | undefined;
    if (arg === '-E' || arg === '--env') pair = argv[index + 1];
    else if (arg.startsWith('--env=')) pair = arg.slice('--env='.length);
    else if (arg.startsWith('-E')) pair = arg.slice('-E'.length);
    if (pair?.startsWith(`${name}=`)) values.push(pair.slice(name.length + 1));
  });
  return values;
};

/** Where the token given on the command line has been written, in words. */
const whereItWasWritten = (env: Env) => {
  if (env.npm_lifecycle_event === undefined) {
    return 'your shell history, if you typed it there, and the process list while the script ran';
  }
  // npm's log directory: logs-dir if configured, else _logs in its cache
  // (~/.npm unless configured); npm exports only the settings that differ.
  const logs =
    env.npm_config_logs_dir ??
    (env.npm_config_cache === undefined ? '~/.npm/_logs/' : `${path.join(env.npm_config_cache, '_logs')}${path.sep}`);
  return `the command npm echoed above, npm's debug log under ${logs}, and your shell history if you typed it there`;
};

/** Reads the token from `file`: a clear error, never its content, when it cannot. */
const readTokenFile = (file: string, cwd: string): string => {
  const { where, text } = readSettingFile(TOKEN_FILE, file, cwd, 'your API key');
  const named = `${TOKEN_FILE} names ${q(where)}`;
  const token = text.trim();
  if (token === '') {
    throw Error(`${named}, which is empty; write your API key into it, alone on one line`);
  }
  if (/\s/.test(token)) {
    throw Error(`${named}, which holds more than one word; it must hold your API key alone, on one line`);
  }
  return token;
};

/**
 * The environment with LAL_AUTH_TOKEN read from LAL_AUTH_TOKEN_FILE when that
 * is set. Throws for a file that is missing, unreadable or empty, and when
 * both are set. Warns when the token was given on the command line.
 */
export const resolveAuthToken = (env: Env, { argv, warn }: SetupInvocation): Env => {
  if (commandLineValues(argv, TOKEN).some(value => value.trim() !== '')) {
    warn(
      `warning: ${TOKEN} was given on the command line (-E), so the API key has been written to ${whereItWasWritten(env)}. ` +
        `Remove it from there and consider rotating it; next time put it in a file only you can read and pass -E ${TOKEN_FILE}=<that file>, ` +
        `or set ${TOKEN} in the environment.`,
    );
  }
  const file = env[TOKEN_FILE]?.trim();
  if (file === undefined || file === '') return env;
  if ((env[TOKEN] ?? '').trim() !== '') {
    throw Error(`both ${TOKEN} and ${TOKEN_FILE} are set; set only one of them (${TOKEN_FILE} is the safer)`);
  }
  // A relative name is the user's: npm runs scripts elsewhere.
  return harden({ ...env, [TOKEN]: readTokenFile(file, invocationDirectory(env)) });
};
harden(resolveAuthToken);

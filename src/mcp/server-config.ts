// src/mcp/: the MCP bridge: one MCP server's tools as FaeTool capabilities,
// each revocable and attenuable, the connection and its credential kept
// inside. It imports the small helpers, the logging and the tool kit.
//
// The settings of one MCP server, as the host gives them at setup and as
// the bridge caplet reads them from its env: which server (a stdio command
// the host names, or a streamable-HTTP URL), never anything the model says.
// The token of an HTTP server stays in its file: only the file's path is a
// setting, and the bridge reads the file when it connects.
import { q } from '@endo/errors';

export type ServerTransport =
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      /** Where the server runs; the host's directory at setup by default. */
      readonly cwd: string | undefined;
    }
  | {
      readonly kind: 'http';
      readonly url: string;
      /** A file whose content is the bearer token; read inside the bridge only. */
      readonly tokenFile: string | undefined;
    };

export interface ServerConfig {
  /** The server's pet-name-shaped name: the host's folder is `mcp-<name>`. */
  readonly name: string;
  readonly transport: ServerTransport;
  /** The longest one call may take when the caller sets no shorter bound, in ms. */
  readonly callTimeoutMs: number;
}

/** The env keys the bridge caplet reads (all strings, as makeUnconfined requires). */
export const SERVER_ENV_NAMES: readonly string[] = harden([
  'FAE_MCP_NAME',
  'FAE_MCP_COMMAND',
  'FAE_MCP_ARGS',
  'FAE_MCP_CWD',
  'FAE_MCP_URL',
  'FAE_MCP_TOKEN_FILE',
  'FAE_MCP_TIMEOUT_MS',
]);

const SERVER_NAME = /^[a-z0-9][a-z0-9-]{0,59}$/;
const DEFAULT_CALL_TIMEOUT_MS = 120_000;

type Env = Readonly<Record<string, string | undefined>>;

const readArgs = (text: string | undefined): readonly string[] => {
  if (text === undefined || text === '') return harden([]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw Error(`FAE_MCP_ARGS must be a JSON array of strings, as in '["--root","/tmp"]', not ${q(text)}`);
  }
  if (!Array.isArray(parsed) || !parsed.every(arg => typeof arg === 'string')) {
    throw Error(`FAE_MCP_ARGS must be a JSON array of strings, not ${q(text)}`);
  }
  return harden([...parsed]);
};

const readUrl = (text: string) => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw Error(`FAE_MCP_URL must be an http(s) URL, not ${q(text)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw Error(`FAE_MCP_URL must be an http(s) URL, not ${q(text)}`);
  }
  if (url.username !== '' || url.password !== '' || url.search !== '') {
    // A credential in the URL would be shown wherever the URL is.
    throw Error('FAE_MCP_URL must carry no user, password or query; put the token in a file named by FAE_MCP_TOKEN_FILE');
  }
  return url.href;
};

/** Reads and checks the server settings; throws a clear error naming the setting. */
export const readServerConfig = (env: Env): ServerConfig => {
  const name = env.FAE_MCP_NAME;
  if (name === undefined || !SERVER_NAME.test(name)) {
    throw Error(
      `FAE_MCP_NAME must name the server in lowercase letters, digits and "-" (at most 60), as in "files", not ${q(name)}`,
    );
  }
  const { FAE_MCP_COMMAND: command, FAE_MCP_URL: url } = env;
  if ((command === undefined || command === '') === (url === undefined || url === '')) {
    throw Error('Name exactly one MCP server: FAE_MCP_COMMAND (a program to run over stdio) or FAE_MCP_URL (a streamable-HTTP endpoint)');
  }
  const timeoutText = env.FAE_MCP_TIMEOUT_MS;
  const callTimeoutMs = timeoutText === undefined || timeoutText === '' ? DEFAULT_CALL_TIMEOUT_MS : Number(timeoutText);
  if (!Number.isSafeInteger(callTimeoutMs) || callTimeoutMs <= 0) {
    throw Error(`FAE_MCP_TIMEOUT_MS must be a positive whole number of milliseconds, not ${q(timeoutText)}`);
  }
  const transport: ServerTransport =
    command !== undefined && command !== ''
      ? { kind: 'stdio', command, args: readArgs(env.FAE_MCP_ARGS), cwd: env.FAE_MCP_CWD || undefined }
      : { kind: 'http', url: readUrl(url as string), tokenFile: env.FAE_MCP_TOKEN_FILE || undefined };
  return harden({ name, transport, callTimeoutMs });
};
harden(readServerConfig);

/** The server as a person reads it (never the token, which is not a setting). */
export const describeServer = ({ transport }: ServerConfig): string =>
  transport.kind === 'stdio'
    ? `stdio ${[transport.command, ...transport.args].map(part => (/^[\w./@:=-]+$/.test(part) ? part : JSON.stringify(part))).join(' ')}`
    : `${transport.url}${transport.tokenFile === undefined ? '' : ' (token from a file)'}`;
harden(describeServer);

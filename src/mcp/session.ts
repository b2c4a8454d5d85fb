// The bridge's one connection to its MCP server, made on first use and
// again on the first use after it was lost (a stdio server exited, an HTTP
// server went away, the daemon restarted): a stdio server is spawned anew.
// The token of an HTTP server is read from its file here, at each connect,
// and goes nowhere but the Authorization header; every error that leaves
// this module passes through the redactor that knows it.
import fs from 'node:fs';
import { q } from '@endo/errors';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../logging/log.js';
import { describeServer, type ServerConfig } from './server-config.js';

/** What the session tells the bridge. */
export interface SessionHooks {
  readonly onToolsChanged: (tools: readonly Tool[]) => void;
  /** After a reconnection: the server may offer other tools than before. */
  readonly onReconnected: () => void;
  /** True when an earlier incarnation of the bridge had connected. */
  readonly connectedBefore: boolean;
}

/** What the bridge needs of its server. */
export interface Session {
  /** The server's tools now (connecting if need be). */
  listTools(): Promise<readonly Tool[]>;
  callTool(name: string, args: Readonly<Record<string, unknown>>, options: { signal: AbortSignal; timeoutMs: number }): Promise<unknown>;
  /** Closes the connection (a stdio server is stopped); a later use connects again. */
  close(): Promise<void>;
}

export interface SessionOptions {
  readonly config: ServerConfig;
  readonly logger: Logger;
  /** Learns the token, so that no log line or error shows it. */
  readonly learnSecret: (secret: string) => void;
  readonly redact: (text: string) => string;
  readonly hooks: SessionHooks;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
// What the last lines a stdio server wrote to stderr may add to an error.
const STDERR_KEPT = 1_000;

const readToken = async (file: string, learnSecret: (secret: string) => void) => {
  let text: string;
  try {
    text = await fs.promises.readFile(file, 'utf8');
  } catch (error) {
    throw Error(`Cannot read the token file ${q(file)} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'}); the host can check FAE_MCP_TOKEN_FILE`);
  }
  const token = text.trim();
  if (token === '') throw Error(`The token file ${q(file)} is empty`);
  learnSecret(token);
  return token;
};

/** The transport to the server: a stdio server spawned (what it writes to stderr told to `onStderr`), or HTTP with the token read now. */
const openTransport = async (config: ServerConfig, learnSecret: (secret: string) => void, onStderr: (text: string) => void) => {
  const { transport } = config;
  if (transport.kind === 'stdio') {
    // The SDK passes the server only a few harmless variables (PATH, HOME,
    // …), never the daemon's own environment.
    const stdio = new StdioClientTransport({
      command: transport.command,
      args: [...transport.args],
      ...(transport.cwd === undefined ? {} : { cwd: transport.cwd }),
      stderr: 'pipe',
    });
    stdio.stderr?.on('data', (chunk: Buffer) => onStderr(chunk.toString('utf8')));
    return stdio;
  }
  const token = transport.tokenFile === undefined ? undefined : await readToken(transport.tokenFile, learnSecret);
  return new StreamableHTTPClientTransport(new URL(transport.url), {
    requestInit: token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } },
  });
};

/** Every page of the server's tool list. */
const listAllTools = async (client: Client) => {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    // Each page names the next: they can only be read in turn.
    // eslint-disable-next-line no-await-in-loop
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return harden(tools);
};

export const makeSession = ({ config, logger, learnSecret, redact, hooks }: SessionOptions): Session => {
  const { onToolsChanged, onReconnected, connectedBefore } = hooks;
  const server = describeServer(config);
  let stderrTail = '';
  let connecting: Promise<Client> | undefined;
  let connections = connectedBefore ? 1 : 0;

  const connect = async () => {
    const client = new Client(
      { name: 'fae-mcp-bridge', version: '0.1.0' },
      {
        listChanged: {
          tools: {
            debounceMs: 0,
            onChanged: (error, tools) => {
              if (error) logger.warn('mcp-tools-refresh-failed', { server: config.name, error: redact(messageOf(error)) });
              else if (tools) onToolsChanged(harden(tools));
            },
          },
        },
      },
    );
    client.onclose = () => {
      // The next use connects again.
      if (connecting !== undefined && current === client) {
        connecting = undefined;
        current = undefined;
        logger.event('mcp-disconnected', { server: config.name });
      }
    };
    const transport = await openTransport(config, learnSecret, text => {
      stderrTail = `${stderrTail}${text}`.slice(-STDERR_KEPT);
    });
    stderrTail = '';
    try {
      await client.connect(transport);
    } catch (error) {
      await client.close().catch(() => {});
      const said = stderrTail.trim() === '' ? '' : `; it said: ${stderrTail.trim().split('\n').slice(-3).join(' | ')}`;
      throw Error(redact(`The MCP server ${q(config.name)} (${server}) cannot be reached: ${messageOf(error)}${said}. The host can check that it runs, then try again`));
    }
    connections += 1;
    logger.event(connections > 1 ? 'mcp-reconnected' : 'mcp-connected', {
      server: config.name,
      ...(config.transport.kind === 'stdio' ? { spawned: 'yes' } : {}),
    });
    current = client;
    if (connections > 1) onReconnected();
    return client;
  };

  let current: Client | undefined;
  const provide = () => {
    if (connecting === undefined) {
      connecting = connect();
      // A failed connect is forgotten, so the next use tries again.
      connecting.catch(() => {
        connecting = undefined;
      });
    }
    return connecting;
  };

  /** Runs `use` on a connection, telling what went wrong in words the model and host can act on. */
  const withClient = async <T>(what: string, use: (client: Client) => Promise<T>, signal?: AbortSignal): Promise<T> => {
    const client = await provide();
    try {
      return await use(client);
    } catch (error) {
      // The server answered (an error, a timeout), or the caller gave up:
      // the connection is fine.
      const answered = error instanceof McpError && error.code !== ErrorCode.ConnectionClosed;
      if (answered || signal?.aborted) throw Error(redact(`${what}: ${messageOf(error)}`));
      // The connection failed under the call: the next use makes a new one.
      if (current === client) {
        connecting = undefined;
        current = undefined;
        client.close().catch(() => {});
      }
      throw Error(redact(`${what}: the MCP server ${q(config.name)} (${server}) cannot be reached: ${messageOf(error)}. The host can check that it runs; the next call connects again`));
    }
  };

  return harden({
    listTools: () =>
      withClient(`Listing the tools of the MCP server ${q(config.name)} failed`, listAllTools),
    callTool: (name, args, { signal, timeoutMs }) =>
      withClient(name, client =>
        client.callTool({ name, arguments: { ...args } }, undefined, { signal, timeout: timeoutMs, resetTimeoutOnProgress: false }),
        signal,
      ),
    close: async () => {
      const client = current;
      connecting = undefined;
      current = undefined;
      await client?.close().catch(() => {});
    },
  });
};
harden(makeSession);

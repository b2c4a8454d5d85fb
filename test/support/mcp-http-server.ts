// A real MCP server over streamable HTTP on 127.0.0.1, built with the
// official SDK's McpServer, for the bridge's tests: it wants a bearer
// token, and offers tools that answer, fail, hang until cancelled (noting
// the cancellation), and add a tool (which makes the SDK send
// notifications/tools/list_changed).
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const READ_ONLY = { readOnlyHint: true } as const;

export const startMcpHttpServer = async ({ token }: { token: string }) => {
  /** The names of the tools whose calls the client cancelled, in order. */
  const cancelled: string[] = [];
  /** Authorization headers that were refused. */
  let refused = 0;
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  const makeServer = () => {
    const server = new McpServer({ name: 'test-http', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
    server.registerTool(
      'lookup.word',
      { description: 'Says what a word is.', inputSchema: { word: z.string() }, annotations: READ_ONLY },
      async ({ word }) => ({ content: [{ type: 'text', text: `${word}: a word` }] }),
    );
    server.registerTool('hang', { description: 'Never answers.', annotations: READ_ONLY }, extra =>
      new Promise(() => {
        extra.signal.addEventListener('abort', () => cancelled.push('hang'));
      }),
    );
    server.registerTool('fail', { description: 'Always fails.', annotations: READ_ONLY }, async () => ({
      isError: true,
      content: [{ type: 'text', text: 'the disk is full' }],
    }));
    server.registerTool(
      'learn',
      { description: 'Adds a tool that says a fixed text.', inputSchema: { name: z.string(), text: z.string() } },
      async ({ name, text }) => {
        server.registerTool(name, { description: `Says ${JSON.stringify(text)}.`, annotations: READ_ONLY }, async () => ({
          content: [{ type: 'text', text }],
        }));
        return { content: [{ type: 'text', text: `learnt ${name}` }] };
      },
    );
    return server;
  };

  const httpServer = http.createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      refused += 1;
      res.writeHead(401).end('unauthorized');
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    const ready = (async () => {
      if (transport !== undefined) return transport;
      const fresh = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: id => {
          sessions.set(id, fresh);
        },
      });
      await makeServer().connect(fresh);
      transport = fresh;
      return fresh;
    })();
    ready.then(
      t => t.handleRequest(req, res),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>(resolve => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  const close = async () => {
    await Promise.all([...sessions.values()].map(t => t.close().catch(() => {})));
    sessions.clear();
    httpServer.closeAllConnections();
    await new Promise(resolve => httpServer.close(resolve));
  };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    cancelled,
    refused: () => refused,
    close,
  };
};

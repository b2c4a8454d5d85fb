// The MCP bridge through fae's whole loop on the local daemon, against real
// MCP servers: server-everything and server-filesystem spawned over stdio
// from node_modules, and an SDK McpServer over streamable HTTP.
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { E } from '@endo/far';
import { setupMcpTools } from '../setup-mcp-tools.js';
import { setupMcpAttenuate } from '../setup-mcp-attenuate.js';
import { setupMcpRevoke } from '../setup-mcp-revoke.js';
import { captureBridgeLogs, serverScript, startFaeCallingAsAsked, stdioServer } from './support/mcp-world.js';
import { startMcpHttpServer } from './support/mcp-http-server.js';
import { tempDirs } from './support/temp-dirs.js';
import { until } from './support/until.js';
import { messageText } from './support/daemon.js';

const bridgeLogs = captureBridgeLogs();
const tempDir = tempDirs('fae-mcp-');
const EVERYTHING = stdioServer('everything', serverScript('server-everything'), ['stdio']);

test('setup-mcp-tools makes a capability per tool, approval following the annotations', async t => {
  const { host } = await startFaeCallingAsAsked(t);
  const report = await setupMcpTools(host, EVERYTHING);
  t.regex(report, /mcp-everything-bridge: created for stdio /);
  t.regex(report, /mcp-everything\/echo: created \("echo" as echo, runs unasked \(read-only\)\)/);
  t.regex(report, /mcp-everything\/toggle-simulated-logging: created \("toggle-simulated-logging" as toggle-simulated-logging, asks the host before each call\)/);
  const names = await E(host).list('mcp-everything');
  t.true(names.includes('echo') && names.includes('get-sum'), String(names));
  const echo = await E(host).lookup(['mcp-everything', 'echo']);
  const schema = await E(echo).schema();
  t.is(schema.function.name, 'echo');
  t.is(schema.needsApproval, undefined);
  t.deepEqual(schema.function.parameters.required, ['message']);
  const toggle = await E(host).lookup(['mcp-everything', 'toggle-simulated-logging']);
  t.true((await E(toggle).schema()).needsApproval);
  const again = await setupMcpTools(host, EVERYTHING);
  t.regex(again, /mcp-everything-bridge: already present/);
  t.regex(again, /mcp-everything\/echo: already present/);
});

test('fae adopts a mailed MCP tool and calls it; images and structured content are described, bad arguments told', async t => {
  const { host, call, give, mail: ask } = await startFaeCallingAsAsked(t);
  await setupMcpTools(host, EVERYTHING);
  t.regex(await ask('Adopt @echo please.', ['echo'], [['mcp-everything', 'echo']]), /results: .*echo/);
  t.is(await call({ name: 'echo', arguments: { message: 'hello' } }), 'results: Echo: hello');
  t.regex(await call({ name: 'echo', arguments: {} }), /results: .*echo.*(message|Required|invalid)/is);
  await give(['mcp-everything', 'get-tiny-image'], ['mcp-everything', 'get-structured-content']);
  const image = await call({ name: 'get-tiny-image' });
  t.regex(image, /\[image image\/png, \d+ bytes, not shown\]/);
  const weather = await call({ name: 'get-structured-content', arguments: { location: 'New York' } });
  t.regex(weather, /temperature/);
});

/** A streamable-HTTP server whose token is in a file planted with a recognisable secret. */
const startHttp = async (t: { teardown(fn: () => unknown): void }) => {
  const secret = `secret-${Math.random().toString(36).slice(2)}-token`;
  const server = await startMcpHttpServer({ token: secret });
  t.teardown(() => server.close());
  const tokenFile = path.join(tempDir(), 'token.txt');
  fs.writeFileSync(tokenFile, `${secret}\n`);
  return { server, secret, env: { FAE_MCP_NAME: 'web', FAE_MCP_URL: server.url, FAE_MCP_TOKEN_FILE: tokenFile } };
};

test('over streamable HTTP: a mapped name, an error, a tool-list change, and the token nowhere', async t => {
  const { server, secret, env } = await startHttp(t);
  const { host, call, give, logs, llm } = await startFaeCallingAsAsked(t, { FAE_APPROVE: 'none' });
  const report = await setupMcpTools(host, env);
  t.regex(report, /mcp-web\/lookup-word: created \("lookup\.word" as lookup_word, runs unasked/);
  t.regex(report, /mcp-web\/learn: created \("learn" as learn, asks the host before each call\)/);
  await give(['mcp-web', 'lookup-word'], ['mcp-web', 'fail'], ['mcp-web', 'learn']);
  t.is(await call({ name: 'lookup_word', arguments: { word: 'fae' } }), 'results: fae: a word');
  t.regex(await call({ name: 'fail' }), /results: .*fail failed: the disk is full/);
  t.is(await call({ name: 'learn', arguments: { name: 'greet', text: 'hello there' } }), 'results: learnt greet');
  // The server said its list changed: the bridge knows the new tool, and
  // setup-mcp-tools run again makes only its capability.
  const bridge = E(host).lookup('mcp-web-bridge');
  t.true(await until(async () => bridgeLogs.some(line => line.includes('mcp-tools-changed') && line.includes('added=greet'))));
  const again = await setupMcpTools(host, env);
  t.regex(again, /mcp-web\/greet: created/);
  t.regex(again, /mcp-web\/fail: already present/);
  await give(['mcp-web', 'greet']);
  t.is(await call({ name: 'greet' }), 'results: hello there');
  t.is((await E(bridge).status()).tools, 5);
  const mail = (await E(host).listMessages()).map(messageText);
  const seen = [report, again, ...mail, ...logs, ...bridgeLogs, JSON.stringify(llm.requests)].join('\n');
  t.false(seen.includes(secret), 'the token appears somewhere');
  t.is(server.refused(), 0);
});

test('a hang is bounded: fae gives up, and its cancellation reaches the server', async t => {
  const { server, env } = await startHttp(t);
  const { host, call, give } = await startFaeCallingAsAsked(t, { FAE_TOOL_TIMEOUT_MS: '300' });
  await setupMcpTools(host, env);
  await give(['mcp-web', 'hang']);
  t.regex(await call({ name: 'hang' }), /results: .*did not answer within 300 ms/);
  t.true(await until(async () => server.cancelled.includes('hang')), 'the server saw notifications/cancelled');
});

test("the bridge's own time bound ends a call fae would still wait for", async t => {
  const { server, env } = await startHttp(t);
  const { host, call, give } = await startFaeCallingAsAsked(t);
  await setupMcpTools(host, { ...env, FAE_MCP_TIMEOUT_MS: '200' });
  await give(['mcp-web', 'hang']);
  t.regex(await call({ name: 'hang' }), /results: .*hang: .*timed out/i);
  t.true(await until(async () => server.cancelled.includes('hang')));
});

test('a server that is gone gives the model and the host a clear error', async t => {
  const { server, env, secret } = await startHttp(t);
  const { host, call, give } = await startFaeCallingAsAsked(t);
  await setupMcpTools(host, env);
  await give(['mcp-web', 'lookup-word']);
  await server.close();
  const answer = await call({ name: 'lookup_word', arguments: { word: 'x' } });
  t.regex(answer, /results: .*lookup\.word: the MCP server \\?"web\\?" .*cannot be reached: .*The host can check that it runs/);
  t.false(answer.includes(secret));
  const error = await t.throwsAsync(E(E(host).lookup('mcp-web-bridge')).tools());
  t.regex(String(error?.message), /web/);
});

test('an attenuated copy refuses outside its folder; revoking cuts off a copy, a tool, the server', async t => {
  const root = tempDir();
  fs.mkdirSync(path.join(root, 'notes'));
  fs.mkdirSync(path.join(root, 'private'));
  fs.writeFileSync(path.join(root, 'notes', 'todo.txt'), 'buy milk');
  fs.writeFileSync(path.join(root, 'private', 'diary.txt'), 'dear diary');
  const { host, call, give } = await startFaeCallingAsAsked(t);
  await setupMcpTools(host, stdioServer('files', serverScript('server-filesystem'), [root]));
  const copy = await setupMcpAttenuate(host, {
    FAE_MCP_NAME: 'files',
    FAE_MCP_TOOL: 'read-text-file',
    FAE_MCP_COPY: 'read-notes',
    FAE_MCP_BOUNDS: JSON.stringify({ under: { path: path.join(root, 'notes') } }),
  });
  t.regex(copy, /mcp-files\/read-notes: created, a copy of mcp-files\/read-text-file/);
  await give(['mcp-files', 'read-notes'], ['mcp-files', 'read-text-file']);
  const inside = path.join(root, 'notes', 'todo.txt');
  t.is(await call({ name: 'read-notes', arguments: { path: inside } }), 'results: buy milk');
  for (const outside of [path.join(root, 'private', 'diary.txt'), `${path.join(root, 'notes')}/../private/diary.txt`, `${root}/notes-x/a`]) {
    t.regex(await call({ name: 'read-notes', arguments: { path: outside } }), /must be a path under .*nothing was sent to the server/, outside);
  }
  // A bounded copy of a tool that asks first refuses out of bounds before the host is asked (its check).
  await setupMcpAttenuate(host, {
    FAE_MCP_NAME: 'files',
    FAE_MCP_TOOL: 'write-file',
    FAE_MCP_COPY: 'write-notes',
    FAE_MCP_BOUNDS: JSON.stringify({ under: { path: path.join(root, 'notes') } }),
  });
  await give(['mcp-files', 'write-notes']);
  const diary = path.join(root, 'private', 'diary.txt');
  t.regex(await call({ name: 'write-notes', arguments: { path: diary, content: 'x' } }), /^results: .*must be a path under .*nothing was sent to the server/);
  t.is(fs.readFileSync(diary, 'utf8'), 'dear diary');
  await setupMcpRevoke(host, { FAE_MCP_NAME: 'files', FAE_MCP_TOOL: 'read-notes' });
  t.regex(await call({ name: 'read-notes', arguments: { path: inside } }), /results: .*The host revoked this tool \(read-notes\)/);
  t.is(await call({ name: 'read_text_file', arguments: { path: inside } }), 'results: buy milk');
  await setupMcpRevoke(host, { FAE_MCP_NAME: 'files' });
  t.regex(await call({ name: 'read_text_file', arguments: { path: inside } }), /results: .*The host revoked the MCP server \\?"files\\?"/);
});

test('after a restart the capabilities work: the bridge respawns its server and says so; revocations stay', async t => {
  const { host, call, give, daemon, llm } = await startFaeCallingAsAsked(t);
  await setupMcpTools(host, { ...EVERYTHING, FAE_MCP_NAME: 'again' });
  await give(['mcp-again', 'echo'], ['mcp-again', 'get-sum']);
  t.is(await call({ name: 'echo', arguments: { message: 'before' } }), 'results: Echo: before');
  await setupMcpRevoke(host, { FAE_MCP_NAME: 'again', FAE_MCP_TOOL: 'get-sum' });
  await daemon.restart();
  t.is(await call({ name: 'echo', arguments: { message: 'after' } }), 'results: Echo: after');
  t.true(bridgeLogs.some(line => line.startsWith('[mcp again] mcp-reconnected')), bridgeLogs.join('\n'));
  // The list read back from the daemon (its keys sorted) is the same list: no change is seen.
  t.false(bridgeLogs.some(line => line.startsWith('[mcp again] mcp-tools-changed')), bridgeLogs.join('\n'));
  // Revoked before the restart, it is no longer even offered: its schema is refused.
  t.regex(await call({ name: 'get-sum', arguments: { a: 1, b: 2 } }), /Unknown tool \\?"get-sum\\?"/);
  t.false(llm.requests.at(-1)?.toolNames.includes('get-sum'));
});

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

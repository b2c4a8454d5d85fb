// The MCP bridge's pure parts: name mapping, bounds, settings, results.
import test from 'ava';
import { nameTools } from '../src/mcp/tool-names.js';
import { applyBounds, boundedInputSchema, parseBounds } from '../src/mcp/bounds.js';
import { readServerConfig } from '../src/mcp/server-config.js';
import { resultText } from '../src/mcp/call-result.js';

test('MCP names map to valid schema and pet names, uniquely, keeping valid ones', t => {
  const long = 'x'.repeat(80);
  const named = nameTools(['read_file', 'fs.read', 'fs_read', 'ns/ü tool', long, `${long}.y`]);
  t.deepEqual(named.map(n => n.schemaName), ['read_file', 'fs_read_2', 'fs_read', 'ns___tool', 'x'.repeat(64), `${'x'.repeat(62)}_2`]);
  t.deepEqual(named.map(n => n.petName).slice(0, 4), ['read-file', 'fs-read', 'fs-read-2', 'ns-tool']);
  for (const { schemaName } of named) t.regex(schemaName, /^[a-zA-Z0-9_-]{1,64}$/);
});

test('bounds pin, confine paths lexically and choose among values, before any call', t => {
  const bounds = parseBounds(JSON.stringify({ pin: { mode: 'r' }, under: { path: '/srv/p/' }, oneOf: { to: ['ada', 'bob'] } }));
  t.deepEqual(applyBounds(bounds, { path: 'a/../b.txt', to: 'ada' }), { mode: 'r', path: '/srv/p/b.txt', to: 'ada' });
  t.deepEqual(applyBounds(bounds, { path: ['/srv/p/x', 'y'] }), { mode: 'r', path: ['/srv/p/x', '/srv/p/y'] });
  t.throws(() => applyBounds(bounds, { path: '/srv/p2/x' }), { message: /must be a path under "\/srv\/p"/ });
  t.throws(() => applyBounds(bounds, { path: '../x' }), { message: /outside/ });
  t.throws(() => applyBounds(bounds, { path: 3 }), { message: /must be a path/ });
  t.throws(() => applyBounds(bounds, { to: 'eve' }), { message: /must be one of \["ada","bob"\]/ });
  t.throws(() => applyBounds(bounds, { mode: 'w' }), { message: /fixed to "r"/ });
  const schema = boundedInputSchema(bounds, { type: 'object', properties: { mode: {}, path: { type: 'string' }, to: {} }, required: ['mode', 'path'] });
  t.deepEqual(schema.required, ['path']);
  t.false('mode' in (schema.properties as object));
  t.throws(() => parseBounds('{"under":{"path":"rel"}}'), { message: /absolute folder/ });
  t.throws(() => parseBounds('{"limit":{}}'), { message: /Unknown bounds/ });
  t.throws(() => parseBounds('nope'), { message: /must be JSON/ });
});

test('server settings: exactly one server, a checked URL without credentials', t => {
  t.throws(() => readServerConfig({ FAE_MCP_NAME: 'Files' }), { message: /FAE_MCP_NAME must/ });
  t.throws(() => readServerConfig({ FAE_MCP_NAME: 'f' }), { message: /exactly one MCP server/ });
  t.throws(() => readServerConfig({ FAE_MCP_NAME: 'f', FAE_MCP_COMMAND: 'x', FAE_MCP_URL: 'http://h/' }), { message: /exactly one/ });
  t.throws(() => readServerConfig({ FAE_MCP_NAME: 'f', FAE_MCP_URL: 'http://u:p@h/' }), { message: /no user, password or query/ });
  t.throws(() => readServerConfig({ FAE_MCP_NAME: 'f', FAE_MCP_COMMAND: 'x', FAE_MCP_ARGS: '"a"' }), { message: /JSON array of strings/ });
  t.throws(() => readServerConfig({ FAE_MCP_NAME: 'f', FAE_MCP_COMMAND: 'x', FAE_MCP_TIMEOUT_MS: '0' }), { message: /FAE_MCP_TIMEOUT_MS/ });
  t.is(readServerConfig({ FAE_MCP_NAME: 'f', FAE_MCP_COMMAND: 'x', FAE_MCP_ARGS: '["-v"]' }).transport.kind, 'stdio');
});

test('results: text kept, media and resources described, errors thrown in the server words', t => {
  const text = resultText('t', {
    content: [
      { type: 'text', text: 'hi' },
      { type: 'audio', mimeType: 'audio/wav', data: 'AAAA' },
      { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'inside' } },
      { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAAAA==' } },
      { type: 'resource_link', uri: 'demo://1', name: 'One', mimeType: 'text/plain' },
    ],
    structuredContent: { n: 1 },
  });
  t.is(
    text,
    'hi\n[audio audio/wav, 3 bytes, not shown]\n[resource "file:///a.txt" (text/plain)]\ninside\n[binary resource "file:///b.bin", 4 bytes, not shown]\n[resource link "demo://1" (text/plain) One]\nstructured content: {"n":1}',
  );
  t.throws(() => resultText('t', { isError: true, content: [{ type: 'text', text: 'no disk' }] }), { message: 't failed: no disk' });
  t.is(resultText('t', { content: [] }), 't returned no content');
});

// What the chat does before the first message: check the settings and the
// LLM, and refuse clearly (and quickly) when either is wrong.
import test, { type ExecutionContext } from 'ava';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closedLoopbackUrl, startLlmServer } from './support/llm-server.js';
import { startChat } from './support/chat-process.js';
import { tempDirs } from './support/temp-dirs.js';
import fs from 'node:fs';
import path from 'node:path';

const tempDir = tempDirs('fae-chat-token-');

const SECRET = 'sk-chat-test-DO-NOT-PRINT-4f1c9a';

/**
 * A safety net only, below ava's timeout: the chat must exit on its own
 * (it does not wait out a retry or a timeout), which no wall clock judges.
 */
const EXIT_WITHIN_MS = 50_000;

/** The chat gave up quickly and said which LLM it could not reach. */
const expectUnreachable = async (
  t: ExecutionContext,
  chat: ReturnType<typeof startChat>,
  url: string,
) => {
  const result = await chat.exited;
  t.false(result.timedOut);
  t.not(result.code, 0);
  t.true(result.stderr.includes(`cannot reach the LLM at ${url}`), result.stderr);
  return result;
};

test('an unreachable LAL_HOST exits non-zero quickly, says what was tried and how to choose an LLM, and never prints the token', async t => {
  const url = await closedLoopbackUrl('openai');
  const chat = startChat({
    env: { LAL_HOST: url, LAL_MODEL: 'some-model', LAL_AUTH_TOKEN: SECRET },
    timeoutMs: EXIT_WITHIN_MS,
  });
  chat.type('hello');
  chat.end();
  const { stdout, stderr } = await expectUnreachable(t, chat, url);
  t.regex(stderr, /OpenAI-compatible/);
  t.regex(stderr, /model "some-model"/);
  for (const name of ['LAL_HOST', 'LAL_MODEL', 'LAL_AUTH_TOKEN', 'LAL_PROVIDER']) {
    t.true(stderr.includes(name), `guidance mentions ${name}`);
  }
  t.regex(stderr, /Ollama/);
  t.regex(stderr, /Anthropic/);
  t.false(stdout.includes(SECRET));
  t.false(stderr.includes(SECRET));
  t.false(stdout.includes('fae:'), 'no conversation started');
});

test('an unreachable Anthropic host gets the same guidance, without the token', async t => {
  const url = await closedLoopbackUrl('anthropic');
  const chat = startChat({ env: { LAL_HOST: url, LAL_AUTH_TOKEN: SECRET }, timeoutMs: EXIT_WITHIN_MS });
  chat.end();
  const { stdout, stderr } = await expectUnreachable(t, chat, url);
  t.regex(stderr, /provider Anthropic/);
  t.false(stdout.includes(SECRET));
  t.false(stderr.includes(SECRET));
});

test('a server that refuses the token exits non-zero saying so, without printing the token', async t => {
  // Every request is answered 401, as a server does for a wrong API key.
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'Incorrect API key provided' } }));
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>(resolve => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/v1`;

  const chat = startChat({ env: { LAL_HOST: url, LAL_AUTH_TOKEN: SECRET }, timeoutMs: EXIT_WITHIN_MS });
  chat.end();
  const { code, stdout, stderr, timedOut } = await chat.exited;
  t.false(timedOut);

  t.is(code, 1);
  // One request, refused: it asked once and gave up, no retry.
  t.deepEqual(seen, [`GET /v1/models Bearer ${SECRET}`]);
  t.true(stderr.includes(`The LLM at ${url}`), stderr);
  t.regex(stderr, /answered HTTP 401: LAL_AUTH_TOKEN was not accepted/);
  t.false(stdout.includes(SECRET));
  t.false(stderr.includes(SECRET));
});

test('a configuration mistake exits non-zero with the reason', async t => {
  const chat = startChat({ env: { LAL_PROVIDER: 'gemini', LAL_AUTH_TOKEN: SECRET } });
  chat.end();
  const { code, stderr, stdout } = await chat.exited;

  t.is(code, 1);
  t.regex(stderr, /LAL_PROVIDER must be one of "anthropic", "openai", "ollama", not "gemini"/);
  t.false(stderr.includes(SECRET));
  t.false(stdout.includes(SECRET));
});

test('Anthropic without a token is refused before anything starts', async t => {
  const chat = startChat({ env: { LAL_HOST: 'https://api.anthropic.com' } });
  chat.end();
  const { code, stderr } = await chat.exited;

  t.is(code, 1);
  t.regex(stderr, /LAL_AUTH_TOKEN is required for Anthropic/);
});

test('an unknown argument exits non-zero with the usage', async t => {
  const chat = startChat({ args: ['--colour'] });
  chat.end();
  const { code, stderr } = await chat.exited;

  t.is(code, 2);
  t.regex(stderr, /Unknown argument "--colour"/);
  t.regex(stderr, /Usage: npm start -- \[--root DIR\] \[--dialect feb\|may\|aug\] \[--verbose\]/);
});

test('the reachability check asks the server for its models, once, before any chat', async t => {
  const server = await startLlmServer('ollama');
  t.teardown(() => server.close());
  const chat = startChat({ env: server.env({ LAL_MODEL: 'test-model' }) });
  chat.end();
  const { code, stderr } = await chat.exited;

  t.is(code, 0, stderr);
  t.deepEqual(
    server.requests.map(request => `${request.method} ${request.path}`),
    ['GET /api/tags'],
  );
  t.is(stderr, '');
});

test('a model Ollama does not have is pointed out, and the chat still starts', async t => {
  const server = await startLlmServer('ollama');
  t.teardown(() => server.close());
  const chat = startChat({ env: server.env({ LAL_MODEL: 'not-pulled' }) });
  chat.type('/help');
  chat.end();
  const { code, stdout, stderr } = await chat.exited;

  t.is(code, 0, stderr);
  t.regex(stderr, /Ollama has no model "not-pulled" yet: run "ollama pull not-pulled"/);
  t.regex(stdout, /\/give <tool> \[message\]/);
});

test('the API key may come from a file (LAL_AUTH_TOKEN_FILE), as for the setup scripts', async t => {
  const server = await startLlmServer('openai');
  t.teardown(() => server.close());
  const file = path.join(tempDir(), 'key');
  fs.writeFileSync(file, `${SECRET}\n`);
  const { LAL_HOST } = server.env();
  const chat = startChat({ env: { LAL_HOST, LAL_MODEL: 'test-model', LAL_AUTH_TOKEN_FILE: file } });
  chat.end();
  const { code, stdout, stderr } = await chat.exited;
  t.is(code, 0, stderr);
  t.is(server.requests[0].headers.authorization, `Bearer ${SECRET}`);
  t.false(`${stdout}${stderr}`.includes(SECRET));
});

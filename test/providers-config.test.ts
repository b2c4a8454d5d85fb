// Reading the LAL_* settings and choosing a provider: every selection rule,
// the defaults, and the configuration errors, which must come before any
// request.
import test from 'ava';
import { createProvider, readProviderConfig, describeProviderConfig } from '../providers/index.js';
import { closedLoopbackUrl, startLlmServer, TEST_TOKEN } from './support/llm-server.js';

test('defaults: Ollama on localhost with qwen3 and the documented limits', t => {
  const config = readProviderConfig({});
  t.deepEqual(
    { ...config },
    {
      kind: 'ollama',
      host: 'http://localhost:11434',
      model: 'qwen3',
      authToken: undefined,
      maxTokens: 4096,
      maxMessages: undefined,
      maxRetries: 2,
      timeoutMs: 120000,
      firstTokenMs: 300000,
      stallMs: 30000,
      contextTokens: 32000,
      debug: false,
      keepAlive: undefined,
    },
  );
  t.true(Object.isFrozen(config));
});

test('a host containing anthropic.com selects Anthropic and its default model', t => {
  const config = readProviderConfig({ LAL_HOST: 'https://api.anthropic.com', LAL_AUTH_TOKEN: 'k' });
  t.is(config.kind, 'anthropic');
  t.is(config.model, 'claude-opus-4-5-20251101');
  t.is(createProvider({ LAL_HOST: 'https://api.anthropic.com', LAL_AUTH_TOKEN: 'k' }).kind, 'anthropic');
});

test('a host containing /v1 selects the OpenAI-compatible provider', t => {
  const env = { LAL_HOST: 'http://localhost:8080/v1' };
  t.is(readProviderConfig(env).kind, 'openai');
  t.is(readProviderConfig(env).model, 'qwen3');
  t.is(createProvider(env).kind, 'openai');
});

test('any other host selects Ollama', t => {
  t.is(createProvider({ LAL_HOST: 'http://gpu-box:11434' }).kind, 'ollama');
});

test('LAL_PROVIDER overrides the URL rules, in any case', t => {
  t.is(readProviderConfig({ LAL_HOST: 'http://gateway.local/llm', LAL_PROVIDER: 'openai' }).kind, 'openai');
  t.is(readProviderConfig({ LAL_HOST: 'http://gateway.local/v1', LAL_PROVIDER: 'Ollama' }).kind, 'ollama');
  const anthropic = createProvider({
    LAL_HOST: 'http://gateway.local/v1',
    LAL_PROVIDER: 'anthropic',
    LAL_AUTH_TOKEN: 'k',
  });
  t.is(anthropic.kind, 'anthropic');
  t.is(anthropic.model, 'claude-opus-4-5-20251101');
});

test('without LAL_HOST, LAL_PROVIDER picks that provider\'s usual host', t => {
  const host = (env: Record<string, string>) => readProviderConfig(env).host;
  t.is(host({ LAL_PROVIDER: 'anthropic', LAL_AUTH_TOKEN: 'k' }), 'https://api.anthropic.com');
  t.is(host({ LAL_PROVIDER: 'openai' }), 'http://localhost:11434/v1');
  t.is(host({ LAL_PROVIDER: 'ollama' }), 'http://localhost:11434');
  t.is(host({}), 'http://localhost:11434');
});

test('an unknown LAL_PROVIDER is a clear error', t => {
  t.throws(() => readProviderConfig({ LAL_PROVIDER: 'gemini' }), {
    message: 'LAL_PROVIDER must be one of "anthropic", "openai", "ollama", not "gemini"',
  });
});

test('LAL_MODEL, LAL_MAX_TOKENS, LAL_MAX_MESSAGES, LAL_MAX_RETRIES, LAL_TIMEOUT_MS, LAL_STALL_MS are read', t => {
  const config = readProviderConfig({
    LAL_MODEL: 'llama3.2',
    LAL_MAX_TOKENS: '512',
    LAL_MAX_MESSAGES: '20',
    LAL_MAX_RETRIES: '0',
    LAL_TIMEOUT_MS: '5000',
    LAL_STALL_MS: '1500',
    LAL_FIRST_TOKEN_MS: '60000',
    FAE_DEBUG: '1',
  });
  t.like(config, {
    model: 'llama3.2',
    maxTokens: 512,
    maxMessages: 20,
    maxRetries: 0,
    timeoutMs: 5000,
    firstTokenMs: 60000,
    stallMs: 1500,
    debug: true,
  });
});

test('blank settings count as unset', t => {
  t.like(readProviderConfig({ LAL_HOST: '', LAL_MODEL: ' ', LAL_MAX_TOKENS: '' }), {
    host: 'http://localhost:11434',
    model: 'qwen3',
    maxTokens: 4096,
  });
});

test('Anthropic without LAL_AUTH_TOKEN fails at once, naming the setting', t => {
  t.throws(() => createProvider({ LAL_HOST: 'https://api.anthropic.com' }), {
    message: /^LAL_AUTH_TOKEN is required for Anthropic .*set it to your API key$/,
  });
  t.throws(() => readProviderConfig({ LAL_PROVIDER: 'anthropic' }), { message: /LAL_AUTH_TOKEN is required/ });
});

test('a non-numeric LAL_MAX_TOKENS is a clear error quoting the value', t => {
  t.throws(() => readProviderConfig({ LAL_MAX_TOKENS: 'lots' }), {
    message: 'LAL_MAX_TOKENS must be a positive whole number, not "lots"',
  });
  t.throws(() => readProviderConfig({ LAL_MAX_TOKENS: '0' }), { message: /LAL_MAX_TOKENS/ });
  t.throws(() => readProviderConfig({ LAL_MAX_MESSAGES: '2.5' }), { message: /LAL_MAX_MESSAGES .*"2.5"/ });
  t.throws(() => readProviderConfig({ LAL_MAX_RETRIES: '-1' }), {
    message: 'LAL_MAX_RETRIES must be a whole number (0 or more), not "-1"',
  });
  t.throws(() => readProviderConfig({ LAL_TIMEOUT_MS: 'soon' }), { message: /LAL_TIMEOUT_MS/ });
  t.throws(() => readProviderConfig({ LAL_STALL_MS: '30s' }), {
    message: 'LAL_STALL_MS must be a positive whole number, not "30s"',
  });
  t.throws(() => readProviderConfig({ LAL_STALL_MS: '0' }), {
    message: 'LAL_STALL_MS must be a positive whole number, not "0"',
  });
});

test('a malformed LAL_HOST is a clear error quoting the value', t => {
  t.throws(() => readProviderConfig({ LAL_HOST: 'not a url' }), {
    message: /^LAL_HOST must be the LLM's base URL, such as "http:\/\/localhost:11434", not "not a url"$/,
  });
  t.throws(() => readProviderConfig({ LAL_HOST: 'localhost:11434' }), {
    message: /^LAL_HOST must start with http:\/\/ or https:\/\/, not "localhost:11434"/,
  });
});

test('the safe description names kind, model and host but not the token', t => {
  const config = readProviderConfig({ LAL_HOST: 'https://api.anthropic.com', LAL_AUTH_TOKEN: TEST_TOKEN });
  const text = describeProviderConfig(config);
  t.is(text, 'anthropic model "claude-opus-4-5-20251101" at https://api.anthropic.com');
});

test('creating a provider touches no network', t => {
  // A closed port: if createProvider connected anywhere, this would throw.
  t.notThrows(() => createProvider({ LAL_HOST: 'http://127.0.0.1:9/v1' }));
});

test('LAL_HOST=http://127.0.0.1:PORT/anthropic.com selects Anthropic and hits that server', async t => {
  const server = await startLlmServer('anthropic');
  t.teardown(() => server.close());
  t.true(server.url.endsWith('/anthropic.com'));
  server.reply({ text: 'from loopback' });
  const provider = createProvider({ LAL_HOST: server.url, LAL_AUTH_TOKEN: TEST_TOKEN });
  t.is(provider.kind, 'anthropic');
  const { message } = await provider.chat([{ role: 'user', content: 'hi' }], []);
  t.is(message.content, 'from loopback');
  t.is(server.chatRequests.length, 1);
  t.is(server.chatRequests[0].path, '/anthropic.com/v1/messages');
});

test('each loopback server url selects its own provider', async t => {
  for (const kind of ['openai', 'anthropic', 'ollama'] as const) {
    const url = await closedLoopbackUrl(kind);
    t.is(createProvider({ LAL_HOST: url, LAL_AUTH_TOKEN: 'k' }).kind, kind, url);
  }
});

test('FAE_KEEP_ALIVE takes Ollama\'s durations, and seconds as a number', t => {
  t.is(readProviderConfig({ FAE_KEEP_ALIVE: '30m' }).keepAlive, '30m');
  t.is(readProviderConfig({ FAE_KEEP_ALIVE: ' 1h30m ' }).keepAlive, '1h30m');
  t.is(readProviderConfig({ FAE_KEEP_ALIVE: '1.5h' }).keepAlive, '1.5h');
  t.is(readProviderConfig({ FAE_KEEP_ALIVE: '-1m' }).keepAlive, '-1m');
  t.is(readProviderConfig({ FAE_KEEP_ALIVE: '0' }).keepAlive, 0);
  t.is(readProviderConfig({ FAE_KEEP_ALIVE: '-1' }).keepAlive, -1);
  t.is(readProviderConfig({ FAE_KEEP_ALIVE: '3600' }).keepAlive, 3600);
  t.is(readProviderConfig({ FAE_KEEP_ALIVE: '' }).keepAlive, undefined);
  for (const wrong of ['30 minutes', 'forever', '5d', '1h 30m', 'm', '--1m']) {
    t.throws(() => readProviderConfig({ FAE_KEEP_ALIVE: wrong }), {
      message: `FAE_KEEP_ALIVE must be a duration such as "30m", "1h30m" or "90s", or a number of seconds (-1: for ever), not ${JSON.stringify(wrong)}`,
    });
  }
});

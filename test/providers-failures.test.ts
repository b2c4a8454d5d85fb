// How every provider fails, through its SDK over loopback HTTP: auth,
// retries with backoff and retry-after, exhausted retries, unreachable hosts,
// unknown models, timeouts, and debug output that never shows the token.
// Also LAL_MAX_MESSAGES truncation as each server receives it.
import test from 'ava';
import { makePromiseKit } from '@endo/promise-kit';
import { createProvider, type ChatMessage, type ProviderKind } from '../providers/index.js';
import { troubleOf } from '../providers/errors.js';
import {
  closedLoopbackUrl,
  startLlmServer,
  TEST_TOKEN,
  type LlmServer,
} from './support/llm-server.js';

const KINDS: readonly ProviderKind[] = ['openai', 'anthropic', 'ollama'];

const hi: ChatMessage[] = [{ role: 'user', content: 'hi' }];

/** A server of `kind`, a provider on it, and the retry waits it asked for. */
const setup = async (
  t: { teardown(fn: () => Promise<void> | void): void },
  kind: ProviderKind,
  extra: Record<string, string> = {},
) => {
  const server = await startLlmServer(kind);
  t.teardown(() => server.close());
  const sleeps: number[] = [];
  const debugLines: string[] = [];
  const provider = createProvider(server.env(extra), {
    sleep: async ms => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    debugLog: line => debugLines.push(line),
  });
  return { server, provider, sleeps, debugLines };
};

const UNKNOWN_MODEL_BODIES: Readonly<Record<ProviderKind, (model: string) => object>> = {
  openai: model => ({
    error: {
      message: `The model \`${model}\` does not exist or you do not have access to it.`,
      type: 'invalid_request_error',
      param: null,
      code: 'model_not_found',
    },
  }),
  anthropic: model => ({ type: 'error', error: { type: 'not_found_error', message: `model: ${model}` } }),
  ollama: model => ({ error: `model '${model}' not found, try pulling it first` }),
};

for (const kind of KINDS) {
  test(`${kind}: a 401 names LAL_AUTH_TOKEN and never shows the token`, async t => {
    const { server, provider, sleeps } = await setup(t, kind);
    server.fail(401, `invalid api key: ${TEST_TOKEN}`);
    const error = await t.throwsAsync(provider.chat(hi, []));
    t.regex(error.message, /HTTP 401/);
    t.regex(error.message, /set LAL_AUTH_TOKEN to a valid API key/);
    t.false(error.message.includes(TEST_TOKEN));
    t.regex(error.message, /\[redacted\]/);
    t.is(server.chatRequests.length, 1, 'an auth failure is not retried');
    t.is(troubleOf(error), 'refused', 'told to a correspondent as a refused key');
    t.deepEqual(sleeps, []);
  });

  test(`${kind}: a 403 also points at LAL_AUTH_TOKEN`, async t => {
    const { server, provider } = await setup(t, kind);
    server.fail(403, 'forbidden');
    const error = await t.throwsAsync(provider.chat(hi, []), { message: /HTTP 403.*LAL_AUTH_TOKEN/ });
    t.is(troubleOf(error), 'refused');
  });

  test(`${kind}: a 429 is retried after the retry-after wait, then succeeds`, async t => {
    const { server, provider, sleeps } = await setup(t, kind);
    server.fail(429, 'slow down', { 'retry-after': '2' }).reply({ text: 'made it' });
    const { message } = await provider.chat(hi, []);
    t.is(message.content, 'made it');
    t.is(server.chatRequests.length, 2);
    t.deepEqual(sleeps, [2000]);
  });

  test(`${kind}: a 500 fails after LAL_MAX_RETRIES retries with backoff`, async t => {
    const { server, provider, sleeps } = await setup(t, kind);
    server.otherwise({ status: 500, message: 'internal trouble' });
    const error = await t.throwsAsync(provider.chat(hi, []), {
      message: /failed with HTTP 500: internal trouble; gave up after 2 retries \(LAL_MAX_RETRIES\)$/,
    });
    t.is(troubleOf(error), 'failed');
    t.is(server.chatRequests.length, 3);
    // Exponential: 500 ms then 1000 ms ceilings, half fixed and half jitter (random 0.5).
    t.deepEqual(sleeps, [375, 750]);
  });

  test(`${kind}: LAL_MAX_RETRIES=0 makes one attempt`, async t => {
    const { server, provider, sleeps } = await setup(t, kind, { LAL_MAX_RETRIES: '0' });
    server.otherwise({ status: 503 });
    await t.throwsAsync(provider.chat(hi, []), { message: /HTTP 503/ });
    t.is(server.chatRequests.length, 1);
    t.deepEqual(sleeps, []);
  });

  test(`${kind}: an unreachable host says "cannot reach the LLM at <LAL_HOST>"`, async t => {
    const url = await closedLoopbackUrl(kind);
    const provider = createProvider({ LAL_HOST: url, LAL_AUTH_TOKEN: TEST_TOKEN });
    const error = await t.throwsAsync(provider.chat(hi, []));
    t.true(error.message.startsWith(`cannot reach the LLM at ${url}`), error.message);
    t.regex(error.message, /check LAL_HOST/);
    t.is(troubleOf(error), 'unreachable');
  });

  test(`${kind}: an unknown model is named in the error`, async t => {
    const { server, provider } = await setup(t, kind, { LAL_MODEL: 'no-such-model' });
    server.fail(404, UNKNOWN_MODEL_BODIES[kind]('no-such-model'));
    await t.throwsAsync(provider.chat(hi, []), {
      message: /does not know the model "no-such-model" .*set LAL_MODEL/,
    });
    t.is(server.chatRequests.length, 1);
  });

  test(`${kind}: an answer that does not begin within LAL_FIRST_TOKEN_MS fails clearly`, async t => {
    const { server, provider } = await setup(t, kind, { LAL_FIRST_TOKEN_MS: '100', LAL_MAX_RETRIES: '0' });
    const never = makePromiseKit<never>();
    server.respond(() => never.promise);
    const error = await t.throwsAsync(provider.chat(hi, []), {
      message: /had not begun its answer after 0\.1 s.*raise LAL_FIRST_TOKEN_MS/,
    });
    t.is(troubleOf(error), 'timeout');
  });

  test(`${kind}: FAE_DEBUG=1 writes redacted lines; without it, nothing`, async t => {
    const quiet = await setup(t, kind);
    quiet.server.reply({ text: 'ok' });
    await quiet.provider.chat(hi, []);
    t.deepEqual(quiet.debugLines, []);

    const loud = await setup(t, kind, { FAE_DEBUG: '1' });
    loud.server.fail(401, `bad key ${TEST_TOKEN}`);
    await t.throwsAsync(loud.provider.chat(hi, []));
    t.true(loud.debugLines.length >= 2, loud.debugLines.join('\n'));
    t.true(loud.debugLines.some(line => line.includes('[redacted]')));
    for (const line of loud.debugLines) {
      t.false(line.includes(TEST_TOKEN), line);
    }
  });
}

// A transcript of two exchanges with tools. Keeping the last 5 non-system
// messages blindly would open the window at the tool result 'r1', whose call
// was cut off; the window must open at the user turn 'q2' instead.
const longTranscript: ChatMessage[] = [
  { role: 'system', content: 'sys' },
  { role: 'user', content: 'q1' },
  {
    role: 'assistant',
    content: '',
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'greet', arguments: '{"name":"A"}' } }],
  },
  { role: 'tool', tool_call_id: 'c1', name: 'greet', content: 'r1' },
  { role: 'assistant', content: 'a1' },
  { role: 'user', content: 'q2' },
  {
    role: 'assistant',
    content: '',
    tool_calls: [{ id: 'c2', type: 'function', function: { name: 'greet', arguments: '{"name":"B"}' } }],
  },
  { role: 'tool', tool_call_id: 'c2', name: 'greet', content: 'r2' },
];

const EXPECTED_WINDOW: Readonly<Record<ProviderKind, (body: { messages: unknown; system?: unknown }) => unknown>> = {
  openai: body => ({
    expected: [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'q2' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c2', type: 'function', function: { name: 'greet', arguments: '{"name":"B"}' } }],
      },
      { role: 'tool', tool_call_id: 'c2', content: 'r2' },
    ],
    actual: body.messages,
  }),
  anthropic: body => ({
    expected: {
      system: [{ type: 'text', text: 'sys' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q2' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'c2', name: 'greet', input: { name: 'B' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c2', content: 'r2' }] },
      ],
    },
    actual: { system: body.system, messages: body.messages },
  }),
  ollama: body => ({
    expected: [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'q2' },
      { role: 'assistant', content: '', tool_calls: [{ function: { name: 'greet', arguments: { name: 'B' } } }] },
      { role: 'tool', content: 'r2', tool_name: 'greet' },
    ],
    actual: body.messages,
  }),
};

for (const kind of KINDS) {
  test(`${kind}: LAL_MAX_MESSAGES keeps the system prompt and opens the window at a user turn`, async t => {
    const { server, provider } = await setup(t, kind, { LAL_MAX_MESSAGES: '5' });
    server.reply({ text: 'a2' });
    const { message } = await provider.chat(longTranscript, []);
    t.is(message.content, 'a2', 'the server accepted the window');
    const { expected, actual } = EXPECTED_WINDOW[kind](server.chatRequests[0].body) as {
      expected: unknown;
      actual: unknown;
    };
    t.deepEqual(actual, expected);
  });
}

test('the loopback servers reject the orphaned tool result that blind truncation produced', async t => {
  // Guards the truncation tests above: without the fix, the request would fail.
  const servers: LlmServer[] = [];
  t.teardown(() => Promise.all(servers.map(s => s.close())).then(() => undefined));
  for (const kind of ['openai', 'anthropic'] as const) {
    const server = await startLlmServer(kind);
    servers.push(server);
    server.reply({ text: 'never' });
    const provider = createProvider(server.env({ LAL_MAX_RETRIES: '0' }));
    // No LAL_MAX_MESSAGES: send an already-broken window by hand.
    const broken = [longTranscript[0], ...longTranscript.slice(3)];
    await t.throwsAsync(provider.chat(broken, []), { message: /HTTP 400/ }, kind);
    t.is(server.pending, 1, `${kind} did not use the scripted reply`);
  }
});

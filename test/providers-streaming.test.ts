// Streamed answers, for every provider, through its SDK over loopback HTTP
// (server-sent events for Anthropic and OpenAI, NDJSON for Ollama): text
// reaches onText in pieces while the answer comes, tool-call arguments are
// assembled exactly from their pieces, usage is read from the stream; a
// stream that goes silent for LAL_STALL_MS is an LlmStallError and its
// connection is closed, as it is on abort; a server that cannot stream is
// asked plainly from then on, which is logged once; a garbled or unfinished
// stream is a clear error. No assertion depends on timing: stalls are
// servers that never go on.
import test from 'ava';
import { makePromiseKit } from '@endo/promise-kit';
import {
  createProvider,
  LlmStallError,
  type ChatMessage,
  type ProviderKind,
  type ProviderOptions,
} from '../providers/index.js';
import { GREET_TOOL } from './support/provider-fixtures.js';
import { startLlmServer, TEST_TOKEN, type LlmServerOptions } from './support/llm-server.js';
import {
  isStreamRequest,
  renderEvent,
  streamEvents,
  STREAM_CONTENT_TYPES,
} from './support/llm-server-wire.js';

const KINDS: readonly ProviderKind[] = ['openai', 'anthropic', 'ollama'];

const hi: ChatMessage[] = harden([{ role: 'user', content: 'hi' }]);

/** A promise that never settles: a server waiting on it has gone silent. */
const never = new Promise<never>(() => {});

type Teardown = { teardown(fn: () => Promise<void>): void };

/** A server of `kind`, and a provider on it whose log lines are kept. */
const setup = async (
  t: Teardown,
  kind: ProviderKind,
  env: Record<string, string> = {},
  serverOptions: LlmServerOptions = {},
) => {
  const server = await startLlmServer(kind, serverOptions);
  t.teardown(() => server.close());
  const logs: { event: string; fields: Readonly<Record<string, unknown>> }[] = [];
  const options: ProviderOptions = { log: (event, fields) => logs.push({ event, fields }) };
  const provider = createProvider(server.env(env), options);
  /** Whether each chat request so far asked for a stream. */
  const streamed = () => server.chatRequests.map(request => isStreamRequest(kind, request.body));
  return { server, provider, logs, streamed };
};

for (const kind of KINDS) {
  test(`${kind}: text reaches onText in pieces before chat() resolves`, async t => {
    const { server, provider } = await setup(t, kind);
    const rest = makePromiseKit<void>();
    server.reply({ text: 'one two three four five six', midway: rest.promise });
    const pieces: string[] = [];
    const firstPiece = makePromiseKit<void>();
    let settled = false;
    const call = provider.chat(hi, [], {
      onText: piece => {
        pieces.push(piece);
        firstPiece.resolve();
      },
    });
    void call.finally(() => {
      settled = true;
    });
    await firstPiece.promise;
    t.false(settled, 'the answer is still coming');
    const before = pieces.length;
    rest.resolve();
    const result = await call;
    t.true(pieces.length > before, 'more pieces came after the pause');
    t.true(pieces.length > 2);
    t.is(pieces.join(''), 'one two three four five six');
    t.is(result.message.content, 'one two three four five six');
    t.true(isStreamRequest(kind, server.chatRequests[0].body));
  });

  test(`${kind}: tool calls are assembled exactly from their pieces, and their arguments never reach onText`, async t => {
    const { server, provider } = await setup(t, kind);
    const tricky = { name: 'Zoë "the \\ coder" 👋', tags: ['a', 'b'], nested: { n: 1.5, ok: true, none: null } };
    server.reply({
      text: 'Greeting both.',
      toolCalls: [
        { id: kind === 'ollama' ? undefined : 'first', name: 'greet', arguments: tricky },
        { id: kind === 'ollama' ? undefined : 'second', name: 'greet', arguments: { name: 'Bob' } },
      ],
    });
    const pieces: string[] = [];
    const { message, stopReason } = await provider.chat(hi, [GREET_TOOL], { onText: piece => pieces.push(piece) });
    t.is(message.content, 'Greeting both.');
    t.is(pieces.join(''), 'Greeting both.');
    const calls = message.tool_calls ?? [];
    t.deepEqual(
      calls.map(call => [call.function.name, call.function.arguments]),
      [
        ['greet', JSON.stringify(tricky)],
        ['greet', '{"name":"Bob"}'],
      ],
    );
    if (kind !== 'ollama') {
      t.deepEqual(calls.map(call => call.id), ['first', 'second']);
    }
    t.not(calls[0].id, calls[1].id);
    t.is(stopReason, 'tool_use');
  });

  test(`${kind}: usage and the stop reason are read from the stream`, async t => {
    const { server, provider } = await setup(t, kind);
    server
      .reply({ text: 'cut short', usage: { inputTokens: 123, outputTokens: 45 }, stopReason: 'max_tokens' })
      .reply({ text: 'no counts', usage: null });
    const first = await provider.chat(hi, []);
    t.deepEqual(first.usage, { inputTokens: 123, outputTokens: 45 });
    t.is(first.stopReason, 'max_tokens');
    const second = await provider.chat(hi, []);
    t.is(second.usage, undefined);
    t.is(second.stopReason, 'end_turn');
    if (kind === 'openai') {
      t.deepEqual(server.chatRequests[0].body.stream_options, { include_usage: true });
    }
  });

  test(`${kind}: a stream that goes silent for LAL_STALL_MS is an LlmStallError, its connection closed, not retried`, async t => {
    const { server, provider } = await setup(t, kind, { LAL_STALL_MS: '200' });
    // Half the answer, then silence.
    server.reply({ text: 'one two three four five six', midway: never }).reply({ text: 'never asked' });
    const error = await t.throwsAsync(provider.chat(hi, []), { instanceOf: LlmStallError });
    t.regex(
      error.message,
      /^the model "[^"]+" at http:\/\/127\.0\.0\.1:\d+\S* went 0\.2 s without a word in the middle of its answer, so its request was closed; .*raise LAL_STALL_MS/,
    );
    t.false(error.message.includes(TEST_TOKEN));
    await server.whenAbandoned(1);
    t.is(server.abandoned.length, 1);
    t.true(server.pending >= 1, 'not retried: the reply scripted after it was never asked for');
  });

  test(`${kind}: an answer not begun within LAL_FIRST_TOKEN_MS is a stall too, naming that setting`, async t => {
    const { server, provider } = await setup(t, kind, { LAL_FIRST_TOKEN_MS: '200', LAL_MAX_RETRIES: '0' });
    // What the server says of itself is asked first, once: asked now, so that the limit is spent on
    // the chat request alone (under load the question alone could outlast 200 ms).
    await provider.contextWindow?.();
    server.hold();
    const error = await t.throwsAsync(provider.chat(hi, []), { instanceOf: LlmStallError, message: /had not begun its answer after 0\.2 s/ });
    t.regex(error.message, /raise LAL_FIRST_TOKEN_MS/);
    // Closed, if it reached the server at all: under load the limit may run out before it is sent.
    await server.whenChatsClosed();
  });

  test(`${kind}: aborting mid-stream closes the connection and rejects with the reason`, async t => {
    const { server, provider } = await setup(t, kind);
    server.reply({ text: 'one two three four five six', midway: never });
    const controller = new AbortController();
    const firstPiece = makePromiseKit<void>();
    const call = provider.chat(hi, [], { signal: controller.signal, onText: () => firstPiece.resolve() });
    await firstPiece.promise;
    const reason = Error('the turn was cancelled');
    controller.abort(reason);
    t.is(await t.throwsAsync(call), reason);
    await server.whenAbandoned(1);
    t.is(server.abandoned.length, 1);
  });

  test(`${kind}: what onText throws ends the call with that error and closes the connection`, async t => {
    const { server, provider } = await setup(t, kind);
    server.reply({ text: 'one two three four five six', midway: never });
    const broken = Error('the display broke');
    const call = provider.chat(hi, [], {
      onText: () => {
        throw broken;
      },
    });
    t.is(await t.throwsAsync(call), broken);
    await server.whenAbandoned(1);
  });

  test(`${kind}: a server that answers a stream request plainly is used plainly from then on, logged once`, async t => {
    const { server, provider, logs, streamed } = await setup(t, kind, {}, { streams: false });
    server.otherwise({ text: 'a plain answer', usage: { inputTokens: 7, outputTokens: 3 } });
    const pieces: string[] = [];
    const first = await provider.chat(hi, [], { onText: piece => pieces.push(piece) });
    t.is(first.message.content, 'a plain answer');
    t.deepEqual(first.usage, { inputTokens: 7, outputTokens: 3 });
    t.deepEqual(pieces, ['a plain answer'], 'onText hears the whole text at once');
    t.deepEqual(streamed(), [true], 'the plain answer in hand is used, not asked for again');
    const second = await provider.chat(hi, []);
    t.is(second.message.content, 'a plain answer');
    t.deepEqual(streamed(), [true, false]);
    t.deepEqual(logs.map(({ event, fields }) => [event, fields.provider]), [['llm-streaming-unsupported', kind]]);
    t.regex(String(logs[0].fields.reason), /plain answer/);
  });

  test(`${kind}: a server that refuses streaming with HTTP 400 gets one plain request, and only plain ones after`, async t => {
    const { server, provider, logs, streamed } = await setup(t, kind);
    server.fail(400, 'Streaming is not supported by this server').otherwise({ text: 'plainly' });
    t.is((await provider.chat(hi, [])).message.content, 'plainly');
    t.deepEqual(streamed(), [true, false]);
    t.is((await provider.chat(hi, [])).message.content, 'plainly');
    t.deepEqual(streamed(), [true, false, false]);
    t.is(logs.length, 1);
    t.regex(String(logs[0].fields.reason), /HTTP 400: Streaming is not supported/);
  });

  test(`${kind}: an HTTP 400 that is not about streaming stays an error, and streaming stays on`, async t => {
    const { server, provider, logs, streamed } = await setup(t, kind);
    server.fail(400, 'messages: something is wrong').reply({ text: 'streamed' });
    await t.throwsAsync(provider.chat(hi, []), { message: /HTTP 400: messages: something is wrong/ });
    t.is((await provider.chat(hi, [])).message.content, 'streamed');
    t.deepEqual(streamed(), [true, true]);
    t.deepEqual(logs, []);
  });

  test(`${kind}: a garbled stream event is a clear error`, async t => {
    const { server, provider } = await setup(t, kind);
    server.reply({ text: `one two three four ${TEST_TOKEN}`, garbled: true });
    const error = await t.throwsAsync(provider.chat(hi, []));
    t.regex(error.message, /^the LLM at http:\/\/127\.0\.0\.1:\d+\S* sent a stream event that is not valid JSON \(.+\); check that LAL_HOST/);
    t.false(error.message.includes(TEST_TOKEN));
    t.is(server.chatRequests.length, 1);
  });

  test(`${kind}: a stream that ends before its final event is an error, not a shorter answer`, async t => {
    const { server, provider } = await setup(t, kind);
    const events = streamEvents(kind, { text: 'one two three four' }, 'test-model', { next: () => 1 });
    const firstHalf = events.slice(0, Math.floor(events.length / 2));
    server.raw(firstHalf.map(event => renderEvent(kind, event)).join(''), STREAM_CONTENT_TYPES[kind]);
    await t.throwsAsync(provider.chat(hi, []), {
      message: /^the LLM at http:\/\/127\.0\.0\.1:\d+\S* ended its streamed answer before it was complete/,
    });
  });
}

/** An error event in the middle of a stream, as each API sends one. */
const ERROR_EVENTS: Readonly<Record<ProviderKind, string>> = {
  anthropic: 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded, try later"}}\n\n',
  openai: 'data: {"error":{"message":"Overloaded, try later","type":"server_error"}}\n\n',
  ollama: '{"error":"Overloaded, try later"}\n',
};

for (const kind of KINDS) {
  test(`${kind}: an error the server reports mid-stream is an error with its message`, async t => {
    const { server, provider } = await setup(t, kind);
    const [first] = streamEvents(kind, { text: 'one two' }, 'test-model', { next: () => 1 });
    server.raw(renderEvent(kind, first) + ERROR_EVENTS[kind], STREAM_CONTENT_TYPES[kind]);
    await t.throwsAsync(provider.chat(hi, []), {
      message: new RegExp(`^the ${kind} request to the LLM at http://127\\.0\\.0\\.1:\\d+\\S* failed: Overloaded, try later$`),
    });
  });
}

test('a 501 refusing streaming is not retried: one plain request follows at once', async t => {
  const { server, provider, logs, streamed } = await setup(t, 'openai');
  server.fail(501, 'stream: not implemented').otherwise({ text: 'plainly' });
  t.is((await provider.chat(hi, [])).message.content, 'plainly');
  t.deepEqual(streamed(), [true, false]);
  t.is(logs.length, 1);
});

test('plain requests are not watched for stalls: once known not to stream, a server may think longer', async t => {
  const { server, provider, streamed } = await setup(t, 'ollama', { LAL_STALL_MS: '1000' }, { streams: false });
  // Before it is known, a plain answer to a streamed request must come
  // within LAL_STALL_MS like any first event; this one comes at once.
  server.reply({ text: 'quick' });
  // Far longer than LAL_STALL_MS, so only an unwatched request gets it.
  const think = () => new Promise(resolve => setTimeout(resolve, 1500));
  server.otherwise(async () => {
    await think();
    return { text: 'slow but sure' };
  });
  t.is((await provider.chat(hi, [])).message.content, 'quick');
  t.is((await provider.chat(hi, [])).message.content, 'slow but sure');
  t.deepEqual(streamed(), [true, false]);
});

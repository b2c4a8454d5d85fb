// Stopping a model call, for every provider, through its SDK over loopback
// HTTP: aborting the call's signal closes the request's connection (the
// server sees it go before its answer is complete) and the call rejects
// with the signal's reason; a retry's wait ends at once; a streamed answer
// that does not begin within LAL_FIRST_TOKEN_MS, or stops halfway for
// LAL_STALL_MS, is closed too. Like every test here, this runs in a realm under
// SES lockdown (test/support/lockdown.ts), as the daemon's worker is.
import test from 'ava';
import { createProvider, type ChatMessage, type ProviderKind } from '../providers/index.js';
import { abortableSleep } from '../providers/retrying-fetch.js';
import { startLlmServer } from './support/llm-server.js';

const KINDS: readonly ProviderKind[] = ['openai', 'anthropic', 'ollama'];

const hi: ChatMessage[] = harden([{ role: 'user', content: 'hi' }]);

const startServer = async (t: { teardown(fn: () => Promise<void>): void }, kind: ProviderKind) => {
  const server = await startLlmServer(kind);
  t.teardown(() => server.close());
  return server;
};

test('AbortController works under lockdown, and a hardened signal cannot be aborted', t => {
  const controller = new AbortController();
  const reason = Error('stop');
  controller.abort(reason);
  t.true(controller.signal.aborted);
  t.is(controller.signal.reason, reason);
  // Why no options bag holding a signal is ever hardened.
  const frozen = new AbortController();
  harden(frozen.signal);
  t.throws(() => frozen.abort(), { instanceOf: TypeError });
});

test('the wait between retries ends at once when its signal aborts', async t => {
  const controller = new AbortController();
  const wait = abortableSleep(10 * 60_000, controller.signal);
  controller.abort(Error('no longer wanted'));
  await t.throwsAsync(wait, { message: 'no longer wanted' });
  await t.throwsAsync(abortableSleep(10 * 60_000, controller.signal), { message: 'no longer wanted' });
});

for (const kind of KINDS) {
  test(`${kind}: aborting a call closes its request, and the call rejects with the reason`, async t => {
    const server = await startServer(t, kind);
    server.hold();
    const provider = createProvider(server.env({ LAL_MAX_RETRIES: '0' }));
    const controller = new AbortController();
    const call = provider.chat(hi, [], { signal: controller.signal });
    await server.whenReceived(1);
    const reason = Error('the turn was cancelled');
    controller.abort(reason);
    t.is(await t.throwsAsync(call), reason);
    await server.whenAbandoned(1);
    t.is(server.abandoned.length, 1);
    t.is(server.chatRequests.length, 1);
  });

  test(`${kind}: a call whose signal has already aborted sends nothing`, async t => {
    const server = await startServer(t, kind);
    server.reply({ text: 'never asked' });
    const provider = createProvider(server.env());
    const controller = new AbortController();
    controller.abort(Error('too late'));
    await t.throwsAsync(provider.chat(hi, [], { signal: controller.signal }), { message: 'too late' });
    t.is(server.chatRequests.length, 0);
  });

  test(`${kind}: an abort during the wait before a retry ends it, and no retry is sent`, async t => {
    const server = await startServer(t, kind);
    server.fail(503, 'busy', { 'retry-after': '5' }).reply({ text: 'never asked' });
    const waiting: number[] = [];
    let startedWaiting: () => void = () => {};
    const waitStarted = new Promise<void>(resolve => {
      startedWaiting = resolve;
    });
    const provider = createProvider(server.env({ LAL_MAX_RETRIES: '2' }), {
      // A wait that only an abort ends: the call can settle only through it.
      sleep: (ms, signal) => {
        waiting.push(ms);
        startedWaiting();
        return new Promise<void>((_, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason));
        });
      },
    });
    const controller = new AbortController();
    const call = provider.chat(hi, [], { signal: controller.signal });
    await waitStarted;
    controller.abort(Error('cancelled while waiting'));
    await t.throwsAsync(call, { message: 'cancelled while waiting' });
    t.deepEqual(waiting, [5000]);
    t.is(server.chatRequests.length, 1);
  });

  test(`${kind}: a streamed answer not begun within LAL_FIRST_TOKEN_MS is closed`, async t => {
    const server = await startServer(t, kind);
    server.hold();
    const provider = createProvider(server.env({ LAL_FIRST_TOKEN_MS: '200', LAL_MAX_RETRIES: '0' }));
    await t.throwsAsync(provider.chat(hi, []), { message: /had not begun its answer after 0\.2 s/ });
    // Closed, if it reached the server at all: under load the limit may run out before it is sent.
    await server.whenChatsClosed();
  });

  test(`${kind}: an answer that stops halfway is a stall, and its connection is closed`, async t => {
    const server = await startServer(t, kind);
    server.stallMidBody();
    const provider = createProvider(server.env({ LAL_STALL_MS: '300', LAL_MAX_RETRIES: '0' }));
    await t.throwsAsync(provider.chat(hi, []), { message: /went 0\.3 s without a word in the middle of its answer/ });
    await server.whenAbandoned(1);
    t.is(server.abandoned.length, 1);
  });
}

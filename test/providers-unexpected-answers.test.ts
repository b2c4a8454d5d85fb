// A 200 answer that is not what the API promised (an HTML page from a
// proxy or login portal, JSON of another shape, an empty body) is an error
// naming the endpoint and what came back, never an empty reply; an answer
// of the right shape with no text stays an empty reply.
import test from 'ava';
import { createProvider, type ChatMessage, type ProviderKind } from '../providers/index.js';
import { troubleOf } from '../providers/errors.js';
import { startLlmServer, TEST_TOKEN } from './support/llm-server.js';
import { replyBody } from './support/llm-server-wire.js';

const KINDS: readonly ProviderKind[] = ['openai', 'anthropic', 'ollama'];
const CHAT_PATHS: Readonly<Record<ProviderKind, string>> = {
  openai: '/v1/chat/completions',
  anthropic: '/anthropic.com/v1/messages',
  ollama: '/api/chat',
};
const hi: ChatMessage[] = [{ role: 'user', content: 'hi' }];

const LOGIN_PAGE = `<!DOCTYPE html>
<html><head><title>Sign in to the guest network</title></head>
<body>Your session expired (token ${TEST_TOKEN}). Please log in again.</body></html>`;

const setup = async (t: { teardown(fn: () => Promise<void>): void }, kind: ProviderKind) => {
  const server = await startLlmServer(kind);
  t.teardown(() => server.close());
  const provider = createProvider(server.env({ LAL_MAX_RETRIES: '0' }));
  return { server, provider };
};

for (const kind of KINDS) {
  test(`${kind}: an HTML page answered with 200 is an error naming the endpoint and the page`, async t => {
    const { server, provider } = await setup(t, kind);
    server.raw(LOGIN_PAGE, 'text/html; charset=utf-8');
    const error = await t.throwsAsync(provider.chat(hi, []));
    t.true(error.message.includes(`answered POST http://127.0.0.1:${server.port}${CHAT_PATHS[kind]} with something that is not`), error.message);
    t.regex(error.message, /HTTP 200, content-type text\/html; charset=utf-8, starting "<!DOCTYPE html> <html><head><title>Sign in/);
    t.regex(error.message, /check that LAL_HOST is the API base URL/);
    t.false(error.message.includes(TEST_TOKEN), error.message);
    t.is(troubleOf(error), 'garbage', 'told to a correspondent as an answer fae could not read');
  });

  test(`${kind}: JSON of the wrong shape is an error quoting it`, async t => {
    const { server, provider } = await setup(t, kind);
    server.raw(JSON.stringify({ status: 'ok', echo: TEST_TOKEN }), 'application/json');
    const error = await t.throwsAsync(provider.chat(hi, []));
    t.regex(error.message, /with something that is not an? (OpenAI-compatible chat completion|Anthropic message|Ollama chat reply)/);
    t.regex(error.message, /content-type application\/json, starting "\{\\"status\\":\\"ok\\",\\"echo\\":\\"\[redacted\]\\"\}"/);
    t.false(error.message.includes(TEST_TOKEN), error.message);
    t.is(troubleOf(error), 'garbage');
  });

  test(`${kind}: an empty 200 body is an error, not an empty reply`, async t => {
    const { server, provider } = await setup(t, kind);
    server.raw('', 'text/plain');
    await t.throwsAsync(provider.chat(hi, []), { message: /content-type text\/plain, starting "\(an empty body\)"/ });
  });

  test(`${kind}: JSON labelled text/plain is still read as JSON`, async t => {
    const { server, provider } = await setup(t, kind);
    const body = replyBody(kind, { text: 'relabelled' }, 'test-model', { next: () => 1 });
    server.raw(JSON.stringify(body), 'text/plain; charset=utf-8');
    const { message } = await provider.chat(hi, []);
    t.is(message.content, 'relabelled');
  });

  test(`${kind}: a reply of the right shape with no text is an empty reply, not an error`, async t => {
    const { server, provider } = await setup(t, kind);
    server.reply({ text: '' });
    const { message } = await provider.chat(hi, []);
    t.is(message.content, '');
  });

  test(`${kind}: a connection reset in the middle of the body is an error`, async t => {
    const { server, provider } = await setup(t, kind);
    server.resetMidBody();
    const error = await t.throwsAsync(provider.chat(hi, []));
    t.regex(error.message, /LLM at http:\/\/127\.0\.0\.1/);
    t.is(troubleOf(error), 'unreachable');
  });
}

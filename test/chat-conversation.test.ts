// `npm start` as a user meets it: the chat's entry point run as a child
// process, typed to on a pipe, against a loopback LLM server.
import test from 'ava';
import { startLlmServer, TEST_TOKEN } from './support/llm-server.js';
import { startChat } from './support/chat-process.js';
import { specialNames } from './support/daemon.js';

/** How fae names its host in a turn, in the dialect the tests run under. */
const HOST_RE = specialNames.host;

test('a message typed on stdin is mailed to fae, and its answer is printed', async t => {
  const server = await startLlmServer('openai');
  t.teardown(() => server.close());
  server.reply({ text: 'Hello from the loopback model.' });

  const chat = startChat({ env: server.env({ LAL_MODEL: 'test-model' }) });
  chat.type('hello fae');
  chat.end();
  const { code, stdout, stderr, timedOut } = await chat.exited;

  t.false(timedOut);
  t.is(code, 0, stderr);
  t.regex(stdout, /^fae: Hello from the loopback model\.$/m);
  t.is(server.chatRequests.length, 1);
  t.regex(server.chatRequests[0].body.messages.at(-1).content, new RegExp(`^Message #\\d+ from ${HOST_RE}: hello fae$`));
  t.is(server.chatRequests[0].body.model, 'test-model');
  t.false(stdout.includes(TEST_TOKEN));
  t.false(stderr.includes(TEST_TOKEN));
});

test('several lines are handled in the order they were typed, each answered', async t => {
  const server = await startLlmServer('anthropic');
  t.teardown(() => server.close());
  server.otherwise(request => {
    const last = request.body.messages.at(-1).content;
    const text = typeof last === 'string' ? last : last.map((block: { text?: string }) => block.text ?? '').join('');
    return { text: `You said: ${text.replace(new RegExp(`^Message #\\d+ from ${HOST_RE}: `), '')}` };
  });

  const chat = startChat({ env: server.env() });
  chat.type('first', '', 'second');
  chat.end();
  const { code, stdout, stderr } = await chat.exited;

  t.is(code, 0, stderr);
  const answers = stdout.split('\n').filter(line => line.startsWith('fae: You said:'));
  t.deepEqual(answers, ['fae: You said: first', 'fae: You said: second']);
  t.false(stdout.includes(TEST_TOKEN));
  t.false(stderr.includes(TEST_TOKEN));
});

test('fae greets the user when it starts, and its log lines stay out of the conversation', async t => {
  const server = await startLlmServer('ollama');
  t.teardown(() => server.close());
  server.reply({ text: 'Hi.' });

  const chat = startChat({ env: server.env({ LAL_MODEL: 'test-model' }) });
  chat.type('hello');
  chat.end();
  const { code, stdout, stderr } = await chat.exited;

  t.is(code, 0, stderr);
  t.regex(stdout, /^fae: Fae agent ready\. /m);
  t.regex(stdout, /^fae: Hi\.$/m);
  t.false(stdout.includes('[fae]'));
  t.false(stderr.includes('[fae]'));
});

test('--verbose shows fae\'s log lines on stderr, apart from the conversation', async t => {
  const server = await startLlmServer('openai');
  t.teardown(() => server.close());
  server.reply({ text: 'Hi.' });

  const chat = startChat({ env: server.env(), args: ['--verbose'] });
  chat.type('hello');
  chat.end();
  const { code, stdout, stderr } = await chat.exited;

  t.is(code, 0, stderr);
  t.regex(stdout, /^fae: Hi\.$/m);
  t.regex(stderr, new RegExp(`^\\[fae\\] message-received message=\\d+ from=${HOST_RE}`, 'm'));
  t.regex(stderr, /^\[fae\] reply-sent/m);
  t.false(stdout.includes('[fae]'));
  t.false(stderr.includes(TEST_TOKEN));
});

test('an empty answer reaches the user as a notice, and end of input stops waiting at once', async t => {
  const server = await startLlmServer('openai');
  t.teardown(() => server.close());
  server.reply({ text: '' });

  // Bounds that make "silent" come after 7 s, should the notice not come.
  const chat = startChat({
    env: server.env({ LAL_TIMEOUT_MS: '2000', LAL_MAX_RETRIES: '0', FAE_TOOL_TIMEOUT_MS: '1000' }),
    timeoutMs: 40_000,
  });
  chat.type('say nothing');
  chat.end();
  const { code, stdout, stderr, timedOut } = await chat.exited;

  t.false(timedOut);
  t.is(code, 0, stderr);
  t.is(server.chatRequests.length, 1);
  t.regex(stdout, /^fae: I finished working on your message but have no answer to give/m);
  t.false(stderr.includes('stopped waiting'), stderr);
});

test('a turn that ends without a reply (fae answered by send) ends the wait as soon as fae is done', async t => {
  const server = await startLlmServer('openai');
  t.teardown(() => server.close());
  server
    .reply({ toolCalls: [{ name: 'send', arguments: { recipient: 'HOST', strings: ['Sent, not replied.'] } }] })
    .reply({ text: '' });

  // Without following fae's own "done", the chat would wait 7 s of silence.
  const chat = startChat({
    env: server.env({ LAL_TIMEOUT_MS: '2000', LAL_MAX_RETRIES: '0', FAE_TOOL_TIMEOUT_MS: '1000' }),
    timeoutMs: 40_000,
  });
  chat.type('answer me by send');
  chat.end();
  const { code, stdout, stderr, timedOut } = await chat.exited;

  t.false(timedOut);
  t.is(code, 0, stderr);
  t.regex(stdout, /^fae: Sent, not replied\.$/m);
  t.false(stdout.includes('no answer to give'), 'the message was answered by send');
  t.false(stderr.includes('stopped waiting'), stderr);
});

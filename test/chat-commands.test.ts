// The chat's commands, typed on a pipe: /help, /tools, /list, /inbox,
// /reset, /quit and mistakes; and leaving with Ctrl-C.
import test from 'ava';
import { startLlmServer } from './support/llm-server.js';
import { startChat } from './support/chat-process.js';
import { dialect, specialNames } from './support/daemon.js';

/** How fae names its host in a turn, in the dialect the tests run under. */
const HOST_RE = specialNames.host;

/** A guest's special names, as list() gives them first (sorted), per dialect. */
const GUEST_SPECIALS = {
  feb: 'AGENT, HOST, MAIL, SELF',
  may: '@agent, @host, @mail, @nets, @self',
  aug: '@agent, @host, @mail, @nets, @planes, @self',
} as const;

test('/help lists every command', async t => {
  const server = await startLlmServer('ollama');
  t.teardown(() => server.close());
  const chat = startChat({ env: server.env({ LAL_MODEL: 'test-model' }) });
  chat.type('/help');
  chat.end();
  const { code, stdout, stderr } = await chat.exited;

  t.is(code, 0, stderr);
  for (const command of ['/help', '/tools', '/give <tool> [message]', '/inbox', '/list', '/reset', '/quit']) {
    t.regex(stdout, new RegExp(`^  ${command.replace(/[[\]]/g, '\\$&')} `, 'm'), command);
  }
  t.is(server.chatRequests.length, 0, 'commands are not mailed to fae');
});

test('/tools lists the example and filesystem tools by pet name and schema name', async t => {
  const server = await startLlmServer('ollama');
  t.teardown(() => server.close());
  const chat = startChat({ env: server.env({ LAL_MODEL: 'test-model' }) });
  chat.type('/tools');
  chat.end();
  const { code, stdout, stderr } = await chat.exited;

  t.is(code, 0, stderr);
  for (const [petName, toolName] of [
    ['greet-tool', 'greet'],
    ['math-tool', 'math'],
    ['timestamp-tool', 'timestamp'],
    ['read-file', 'readFile'],
    ['write-file', 'writeFile'],
    ['edit-file', 'editFile'],
    ['edit', 'edit'],
    ['list-dir', 'listDir'],
    ['run-command', 'runCommand'],
  ]) {
    t.regex(stdout, new RegExp(`^  ${petName} +${toolName}: `, 'm'), petName);
  }
});

test('/list shows fae\'s names and, once adopted, its tools; /inbox shows the conversation', async t => {
  const server = await startLlmServer('openai');
  t.teardown(() => server.close());
  server
    .respond(request => {
      const text: string = request.body.messages.at(-1).content;
      const number = Number(/^Message #(\d+)/.exec(text)?.[1]);
      return { toolCalls: [{ name: 'adoptTool', arguments: { messageNumber: number, edgeName: 'math-tool', toolName: 'math' } }] };
    })
    .reply({ text: 'Adopted math.' });
  const chat = startChat({ env: server.env() });
  chat.type('/list', '/give math');
  await chat.waitForOutput(/^fae: Adopted math\.$/m);
  chat.type('/list', '/inbox');
  chat.end();
  const { code, stdout, stderr } = await chat.exited;

  t.is(code, 0, stderr);
  t.regex(stdout, new RegExp(`^fae's names: ${GUEST_SPECIALS[dialect]}, conversations, tools$`, 'm'));
  t.regex(stdout, /^fae's tools: \(none adopted yet\)$/m);
  t.regex(stdout, /^fae's tools: math$/m);
  t.regex(stdout, /^#\d+ fae: Fae agent ready\. /m);
  t.regex(stdout, /^#\d+ you → fae: Here is a tool for you: @math-tool$/m);
  t.regex(stdout, /^#\d+ fae: Adopted math\.$/m);
});

test('/reset restarts fae with an empty conversation', async t => {
  const server = await startLlmServer('openai');
  t.teardown(() => server.close());
  server.reply({ text: 'Nice to meet you, Ada.' }).reply({ text: 'I do not know your name.' });
  const chat = startChat({ env: server.env() });
  chat.type('My name is Ada.');
  await chat.waitForOutput(/^fae: Nice to meet you, Ada\.$/m);
  chat.type('/reset', 'What is my name?');
  chat.end();
  const { code, stdout, stderr } = await chat.exited;

  t.is(code, 0, stderr);
  t.regex(stdout, /^\(fae was restarted with an empty conversation; its adopted tools are kept\)$/m);
  t.regex(stdout, /^fae: I do not know your name\.$/m);
  const [first, second] = server.chatRequests;
  t.is(first.body.messages.length, 2);
  t.deepEqual(
    second.body.messages.map((message: { role: string }) => message.role),
    ['system', 'user'],
    'the earlier exchange is gone',
  );
  t.regex(second.body.messages[1].content, new RegExp(`from ${HOST_RE}: What is my name\\?$`));
});

test('unknown commands and unknown tools are explained, and the chat goes on', async t => {
  const server = await startLlmServer('ollama');
  t.teardown(() => server.close());
  server.reply({ text: 'Still here.' });
  const chat = startChat({ env: server.env({ LAL_MODEL: 'test-model' }) });
  chat.type('/frobnicate', '/give hammer', '/give', 'are you there?');
  chat.end();
  const { code, stdout, stderr } = await chat.exited;

  t.is(code, 0, stderr);
  t.regex(stderr, /Unknown command "\/frobnicate"; \/help lists the commands/);
  t.regex(stderr, /There is no tool "hammer"; \/tools lists the ones you can give/);
  t.regex(stderr, /Say which tool to give/);
  t.regex(stdout, /^fae: Still here\.$/m);
});

test('/quit leaves at once, without waiting for answers or reading further lines', async t => {
  const server = await startLlmServer('openai');
  t.teardown(() => server.close());
  const chat = startChat({ env: server.env() });
  chat.type('/quit', 'this is never sent');
  // stdin stays open: /quit alone must end the chat.
  const { code, stderr, timedOut } = await chat.exited;

  t.false(timedOut);
  t.is(code, 0, stderr);
  t.is(server.chatRequests.length, 0);
});

test('Ctrl-C (SIGINT) leaves cleanly with exit code 0', async t => {
  const server = await startLlmServer('openai');
  t.teardown(() => server.close());
  const chat = startChat({ env: server.env() });
  await chat.waitForOutput(/^fae: Fae agent ready\. /m);
  chat.child.kill('SIGINT');
  const { code, signal, stderr, timedOut } = await chat.exited;

  t.false(timedOut);
  t.is(signal, null);
  t.is(code, 0, stderr);
});

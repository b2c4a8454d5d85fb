// /give in the chat: the user mails fae a tool capability from the host's
// inventory; fae adopts it and calls it, against a loopback LLM server.
import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startLlmServer, type RecordedRequest } from './support/llm-server.js';
import { startChat } from './support/chat-process.js';
import { specialNames } from './support/daemon.js';

/** How fae names its host in a turn, in the dialect the tests run under. */
const HOST_RE = specialNames.host;

/** The number fae gave the message whose text matches, as the model sees it. */
const messageNumberOf = (request: RecordedRequest, pattern: RegExp): number => {
  for (const message of request.body.messages) {
    const text = typeof message.content === 'string' ? message.content : '';
    const match = new RegExp(`^Message #(\\d+) from ${HOST_RE}: (.*)$`, 's').exec(text);
    if (match && pattern.test(match[2])) return Number(match[1]);
  }
  throw Error(`No message matching ${pattern} in the request`);
};

const toolNames = (request: RecordedRequest): string[] =>
  (request.body.tools ?? []).map((tool: { function: { name: string } }) => tool.function.name);

test('/give greet, then a request: fae adopts the tool and calls it', async t => {
  const server = await startLlmServer('openai');
  t.teardown(() => server.close());
  server
    .respond(request => ({
      toolCalls: [
        {
          name: 'adoptTool',
          arguments: {
            messageNumber: messageNumberOf(request, /@greet-tool/),
            edgeName: 'greet-tool',
            toolName: 'greeter',
          },
        },
      ],
    }))
    .reply({ text: 'I can greet people now.' })
    .reply({ toolCalls: [{ name: 'greet', arguments: { name: 'Ada', language: 'french' } }] })
    .reply({ text: 'Done: Bonjour, Ada!' });

  const chat = startChat({ env: server.env() });
  chat.type('/give greet', 'Please greet Ada in French.');
  chat.end();
  const { code, stdout, stderr, timedOut } = await chat.exited;

  t.false(timedOut);
  t.is(code, 0, stderr);
  t.is(server.chatRequests.length, 4);
  const [adopting, adopted, asked, answered] = server.chatRequests;
  t.regex(adopting.body.messages.at(-1).content, new RegExp(`^Message #\\d+ from ${HOST_RE}: Here is a tool for you: @greet-tool$`));
  t.false(toolNames(adopting).includes('greet'));
  t.true(toolNames(asked).includes('greet'));
  t.regex(asked.body.messages.at(-1).content, new RegExp(`from ${HOST_RE}: Please greet Ada in French\\.$`));
  t.is(adopted.body.messages.at(-1).role, 'tool');
  t.deepEqual(answered.body.messages.at(-1), {
    role: 'tool',
    tool_call_id: answered.body.messages.at(-2).tool_calls[0].id,
    content: 'Bonjour, Ada!',
  });
  t.regex(stdout, /^\(you gave fae greet-tool\)$/m);
  t.regex(stdout, /^… fae is calling greet$/m);
  t.regex(stdout, /^fae: I can greet people now\.$/m);
  t.regex(stdout, /^fae: Done: Bonjour, Ada!$/m);
  t.true(stdout.indexOf('fae is calling greet') < stdout.indexOf('fae: Done'));
});

test('/give with a message sends the note with the attachment', async t => {
  const server = await startLlmServer('ollama');
  t.teardown(() => server.close());
  server.reply({ text: 'Thanks.' });

  const chat = startChat({ env: server.env({ LAL_MODEL: 'test-model' }) });
  chat.type('/give math-tool use this for sums');
  chat.end();
  const { code, stderr } = await chat.exited;

  t.is(code, 0, stderr);
  t.regex(server.chatRequests[0].body.messages.at(-1).content, new RegExp(`from ${HOST_RE}: use this for sums @math-tool$`));
});

test('--root gives the filesystem tools their root', async t => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fae-chat-root-'));
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.writeFileSync(path.join(root, 'note.txt'), 'the secret word is marmalade\n');
  const server = await startLlmServer('openai');
  t.teardown(() => server.close());
  server
    .respond(request => ({
      toolCalls: [
        {
          name: 'adoptTool',
          arguments: { messageNumber: messageNumberOf(request, /@read-file/), edgeName: 'read-file', toolName: 'read-file' },
        },
      ],
    }))
    .reply({ text: 'Adopted.' })
    .reply({ toolCalls: [{ name: 'readFile', arguments: { filePath: 'note.txt' } }] })
    .reply({ text: 'It says marmalade.' });

  const chat = startChat({ env: server.env(), args: ['--root', root] });
  chat.type('/give read-file', 'What does note.txt say?');
  chat.end();
  const { code, stdout, stderr } = await chat.exited;

  t.is(code, 0, stderr);
  t.true(stdout.includes(`its filesystem tools work in ${fs.realpathSync(root)}`), stdout);
  const result = server.chatRequests[3].body.messages.at(-1);
  t.is(result.role, 'tool');
  t.regex(result.content, /the secret word is marmalade/);
  t.regex(stdout, /^… fae is calling readFile$/m);
  t.regex(stdout, /^fae: It says marmalade\.$/m);
});

test('FAE_CWD gives the filesystem tools their root when --root is not given', async t => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fae-chat-cwd-'));
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
  const server = await startLlmServer('ollama');
  t.teardown(() => server.close());

  const chat = startChat({ env: server.env({ FAE_CWD: root }) });
  chat.type('/tools');
  chat.end();
  const { code, stdout, stderr } = await chat.exited;

  t.is(code, 0, stderr);
  t.regex(stdout, new RegExp(`^  read-file +readFile: .*relative to ${fs.realpathSync(root).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'));
});

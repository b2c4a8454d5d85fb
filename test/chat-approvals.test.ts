// npm start as fae's host (issue 22): fae's approval request is shown in the
// terminal and answered there, by /approve, /deny, /always or a decision
// typed at the prompt; /list shows the standing approvals and /revoke ends
// one; at the end of input a request still waiting is denied.
import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startLlmServer, type LlmServer, type RecordedRequest } from './support/llm-server.js';
import { startChat } from './support/chat-process.js';
import { specialNames } from './support/daemon.js';

const adoptWriteFile = (request: RecordedRequest) => {
  for (const message of request.body.messages) {
    const text = typeof message.content === 'string' ? message.content : '';
    const match = new RegExp(`^Message #(\\d+) from ${specialNames.host}: .*@write-file$`, 's').exec(text);
    if (match) {
      return { toolCalls: [{ name: 'adoptTool', arguments: { messageNumber: Number(match[1]), edgeName: 'write-file', toolName: 'write-file' } }] };
    }
  }
  throw Error('no message with @write-file');
};

/** The model writes `file` when asked, then says what the call gave it. */
const writeThenSay = (server: LlmServer, file: string) =>
  server
    .reply({ toolCalls: [{ name: 'writeFile', arguments: { filePath: file, contents: 'hello\n' } }] })
    .respond(request => ({ text: `said: ${request.body.messages.at(-1).content}` }));

/**
 * The chat in a root of its own, with a model that adopts write-file when
 * it is given, then writes a.txt, b.txt and c.txt, one per message.
 */
const startWriting = async (t: { teardown(f: () => void): void }) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fae-chat-approve-'));
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
  const server = await startLlmServer('openai');
  t.teardown(() => server.close());
  server.respond(adoptWriteFile).reply({ text: 'Adopted.' });
  for (const file of ['a.txt', 'b.txt', 'c.txt']) writeThenSay(server, file);
  const chat = startChat({ env: server.env(), args: ['--root', root] });
  chat.type('/give write-file', 'Write a.txt');
  return { root, chat };
};

test('a write waits for /approve in the terminal; a decision typed at the prompt answers too; /deny tells the model why', async t => {
  const { root, chat } = await startWriting(t);
  await chat.waitForOutput(/Approval needed: write `a\.txt` \(1 line\) for you\? \(request [0-9a-f]{4}\)/);
  t.false(fs.existsSync(path.join(root, 'a.txt')), 'nothing written before the answer');
  t.regex(chat.stdout(), /Write a\.txt: 6 characters, 1 line\. The new content, whole:\n```\nhello\n```/);
  t.regex(chat.stdout(), /Answer with \/approve, \/deny \[reason\] or \/always \(from now on, for you\); or type yes, no or always\./);
  chat.type('/approve');
  await chat.waitForOutput(/fae: said: Created a\.txt/);
  t.is(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'hello\n');

  chat.type('Write b.txt');
  await chat.waitForOutput(/request [0-9a-f]{4}\)[\s\S]*Write b\.txt/);
  chat.type('yes');
  await chat.waitForOutput(/fae: said: Created b\.txt/);
  t.regex(chat.stdout(), /\(you answered fae's request [0-9a-f]{4} to write `b\.txt` \(1 line\): yes\)/);

  chat.type('Write c.txt');
  await chat.waitForOutput(/Write c\.txt: /);
  chat.type('/deny not in this folder');
  await chat.waitForOutput(/fae: said: The host denied this: not in this folder\./);
  t.false(fs.existsSync(path.join(root, 'c.txt')));
  chat.end();
  const { code, stderr } = await chat.exited;
  t.is(code, 0, stderr);
});

test('/always grants standing approval, /list shows it, /revoke ends it; a request waiting at the end of input is denied', async t => {
  const { root, chat } = await startWriting(t);
  await chat.waitForOutput(/Write a\.txt: /);
  chat.type('/always');
  await chat.waitForOutput(/fae: said: Created a\.txt/);
  chat.type('Write b.txt');
  await chat.waitForOutput(/fae: said: Created b\.txt/);
  t.is((chat.stdout().match(/Approval needed:/g) ?? []).length, 1, 'no second request under the grant');
  chat.type('/list');
  await chat.waitForOutput(/your standing approvals: 1: writeFile for (HOST|@host)$/m);
  chat.type('/revoke 1');
  await chat.waitForOutput(/\(standing approval 1 revoked: fae asks you again from its next call on\)/);
  chat.type('Write c.txt');
  await chat.waitForOutput(/Write c\.txt: /);
  chat.end();
  const { code, stdout, stderr } = await chat.exited;
  t.is(code, 0, stderr);
  t.regex(stdout, /\(your input has ended: fae's requests still waiting for your approval are denied\)/);
  t.regex(stdout, /fae: said: The host denied this: the host left the chat\./);
  t.false(fs.existsSync(path.join(root, 'c.txt')));
});

test('with FAE_EVALUATE=review, the code fae wants to run is shown in the terminal and runs once approved', async t => {
  const server = await startLlmServer('openai');
  t.teardown(() => server.close());
  server
    .reply({ toolCalls: [{ name: 'evaluate', arguments: { source: '6 * 7' } }] })
    .respond(request => ({ text: `said: ${request.body.messages.at(-1).content}` }));
  const chat = startChat({ env: server.env({ FAE_EVALUATE: 'review' }) });
  chat.type('How much is six times seven?');
  await chat.waitForOutput(/```js\n6 \* 7\n```/);
  chat.type('/approve');
  await chat.waitForOutput(/fae: said: 42/);
  chat.end();
  const { code, stderr } = await chat.exited;
  t.is(code, 0, stderr);
});

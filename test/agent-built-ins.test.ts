// The full toolset inside a running fae: what the model is offered, what a
// call to a missing tool tells it, answering a request within a turn, and
// the edit tool used by the model.
import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { E } from '@endo/far';
import { startFaeInDaemon } from './support/fae-harness.js';
import { lastMessageNumber, makeScriptedProvider } from './support/scripted-provider.js';
import type { RecordedRequest } from './support/scripted-provider.js';
import { messageText } from './support/daemon.js';
import { toolUrl } from './support/tool-caplets.js';
import { detectDialect, specialNames } from '../src/daemon/dialect.js';

const BUILT_INS = [
  'list', 'lookup', 'store', 'remove', 'adoptTool', 'send', 'reply', 'listMessages', 'dismiss',
  'has', 'move', 'copy', 'makeDirectory', 'identify',
  'adopt', 'request', 'resolve', 'reject',
  'inspect', 'help',
  'forgetConversation',
];

const lastToolResult = (request: RecordedRequest) => request.messages.at(-1)?.content ?? '';


test('the model is offered every built-in, and a call to a missing tool lists them', async t => {
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'rename', arguments: { from: 'a', to: 'b' } }] },
    { text: 'ok' },
  ]);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({ provider: llm.provider });
  t.teardown(() => daemon.stop());
  await nextFromFae();
  await E(host).send('fae', ['rename a to b'], [], []);
  t.is(messageText(await nextFromFae()), 'ok');
  t.deepEqual(llm.requests[0].toolNames, BUILT_INS);
  t.is(
    lastToolResult(llm.requests[1]),
    `{error:"Unknown tool \\"rename\\". The tools are: ${BUILT_INS.join(', ')}"}`,
  );
});

test('a request from the host is answered with resolve, and that counts as the answer', async t => {
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'store', arguments: { value: 'the note', petName: 'note' } }] },
    request => ({
      toolCalls: [{ name: 'resolve', arguments: { messageNumber: lastMessageNumber(request), petName: 'note' } }],
    }),
    { text: 'I gave you the note.' },
    { text: 'pong' },
  ]);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({ provider: llm.provider });
  t.teardown(() => daemon.stop());
  await nextFromFae();
  const answer = await E(host).request('fae', 'your note, please', 'from-fae');
  t.is(answer, 'the note');
  t.regex(String(llm.requests[0].messages.at(-1)?.content), /is a request .*asking: your note, please\nAnswer it with resolve/);
  t.regex(lastToolResult(await llm.whenCalled(3)), /^Answered request #\d+ with "note"\.$/);
  // The plain-text answer was not mailed as well: the next mail is the pong.
  await E(host).send('fae', ['ping'], [], []);
  t.is(messageText(await nextFromFae()), 'pong');
});

test('the model edits a file with the edit tool and sees the diff', async t => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fae-agent-edit-')));
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.writeFileSync(path.join(root, 'todo.txt'), 'buy milk\nwrite tests\n');
  const llm = makeScriptedProvider([
    {
      toolCalls: [
        {
          name: 'edit',
          arguments: {
            path: 'todo.txt',
            edits: [
              { oldText: 'buy milk', newText: 'buy oat milk' },
              { oldText: 'write tests\n', newText: '' },
            ],
          },
        },
      ],
    },
    request => ({ text: lastToolResult(request) }),
  ]);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({
    provider: llm.provider,
    // edit asks for the host's approval; that is agent-approvals.test.ts's.
    env: { FAE_APPROVE: 'none' },
    introducedNames: { edit: 'edit' },
    prepare: async h => {
      const { main } = specialNames(await detectDialect(h));
      await E(h).makeUnconfined(main, toolUrl('edit'), { resultName: 'edit', env: { FAE_CWD: root } });
    },
  });
  t.teardown(() => daemon.stop());
  await nextFromFae();
  await E(host).send('fae', ['update my todo list'], [], []);
  t.is(
    messageText(await nextFromFae()),
    'Applied 2 edits to todo.txt.\n--- a/todo.txt\n+++ b/todo.txt\n@@ -1,2 +1,1 @@\n-buy milk\n+buy oat milk\n-write tests',
  );
  t.is(fs.readFileSync(path.join(root, 'todo.txt'), 'utf8'), 'buy oat milk\n');
  t.true(llm.requests[0].toolNames.includes('edit'));
});

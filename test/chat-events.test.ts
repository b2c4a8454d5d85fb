// The chat follows fae through its event API, not its log lines: the
// chat's session runs in this process (a local daemon, the built
// dist/agent.js, a loopback LLM server) with every console line dropped,
// fae's log lines among them, and its status line and "done" bookkeeping
// wired exactly as main.ts wires them.
import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startLlmServer } from './support/llm-server.js';
import { dialect } from './support/daemon.js';
import { installQuietConsole } from '../src/chat/quiet-console.js';
import { readSettings } from '../src/chat/settings.js';
import { startChatSession } from '../src/chat/session.js';
import { makeProgress } from '../src/chat/progress.js';
import { makePendingAnswers } from '../src/chat/pending.js';
import { watchFaeEvents } from '../src/chat/fae-follower.js';
import { showRevision } from '../src/chat/mail-feed.js';

/** Bound on waiting for fae's answers: generous, as on a busy machine. */
const QUIET_MS = 30_000;

test("with fae's log lines hidden entirely, the status line shows its tool calls and the chat knows when it is done, before and after /reset", async t => {
  let faeLogLines = 0;
  const restoreConsole = installQuietConsole(line => {
    if (line.startsWith('[fae] ')) faeLogLines += 1;
  });
  t.teardown(restoreConsole);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fae-chat-events-'));
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
  const server = await startLlmServer('openai');
  t.teardown(() => server.close());
  server
    .reply({ toolCalls: [{ name: 'list', arguments: {} }] })
    .reply({ text: 'I hold a few names.' })
    .reply({ toolCalls: [{ name: 'listMessages', arguments: {} }] })
    .reply({ text: 'Your message is the only one.' });

  const settings = readSettings(server.env(), { root, dialect, verbose: false, help: false });
  const statuses: (string | undefined)[] = [];
  const transcript: string[] = [];
  const progress = makeProgress(status => statuses.push(status));
  const pending = makePendingAnswers({ onBusyChange: progress.setBusy });
  const session = await startChatSession({
    dialect,
    config: settings.setup,
    root: settings.root,
    pending,
    onMail: showRevision({ screen: { mail: (from, text) => transcript.push(`${from}: ${text}`) }, progress, pending }),
    onFaeEvent: watchFaeEvents({ progress, pending, resync: () => {} }),
  });
  t.teardown(() => session.stop());

  await session.say('What do you hold?');
  t.is(await pending.whenSettled(QUIET_MS), 'answered');
  await session.reset();
  await session.say('What mail is there?');
  t.is(await pending.whenSettled(QUIET_MS), 'answered');

  t.true(faeLogLines > 0, 'fae did log, and the chat never saw it');
  t.true(transcript.includes('fae: I hold a few names.'), transcript.join('\n'));
  t.true(transcript.includes('fae: Your message is the only one.'), transcript.join('\n'));
  t.deepEqual(statuses, [
    'fae is thinking',
    'fae is calling list',
    'fae is thinking',
    undefined,
    'fae is thinking',
    'fae is calling listMessages',
    'fae is thinking',
    undefined,
  ]);
});

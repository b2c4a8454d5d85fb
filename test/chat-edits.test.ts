// Edited messages in the chat, on the August local daemon (the only
// generation with edits): a guest replies as fae's progress reply does —
// a placeholder, edits still being written (done: false), the answer —
// and then edits the answer. The host's mail is read as the chat reads it
// (its daemon adapter, mail-feed.ts), and shown on a recording screen.
import test from 'ava';
import { E } from '@endo/far';
import { makeLocalDaemon } from '../src/local-daemon/index.js';
import { makeDaemonAdapter } from '../src/daemon/adapter.js';
import { messageText } from '../src/daemon/message-format.js';
import { followMail, showRevision } from '../src/chat/mail-feed.js';
import { makeProgress } from '../src/chat/progress.js';
import { makePendingAnswers } from '../src/chat/pending.js';
import { follow, type MessageRecord } from './support/daemon.js';

// `any`: daemon objects are remote presences.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

test('a reply edited as it is written is printed once as the answer, its progress only on the status line; a later edit is marked', async t => {
  const daemon = makeLocalDaemon({ dialect: 'aug' });
  t.teardown(() => daemon.stop());
  const host: Far = await daemon.host;
  const guest: Far = await E(host).provideGuest('fae', { agentName: 'profile-for-fae' });

  const transcript: string[] = [];
  const statuses: (string | undefined)[] = [];
  // What has been shown so far, each time something is.
  const changes: (() => void)[] = [];
  const until = (done: () => boolean) =>
    new Promise<void>(resolve => {
      const check = () => {
        if (done()) resolve();
        else changes.push(check);
      };
      check();
    });
  const changed = () => {
    for (const check of changes.splice(0)) check();
  };
  const progress = makeProgress(status => {
    statuses.push(status);
    changed();
  });
  const pending = makePendingAnswers({ onBusyChange: progress.setBusy });
  pending.sending(); // the user's question, owed an answer: the status line is on
  const show = showRevision({
    screen: {
      mail: (from, text) => {
        transcript.push(`${from}: ${text}`);
        changed();
      },
    },
    progress,
    pending,
  });

  const guestInbox = follow<MessageRecord>(E(guest).followMessages());
  t.teardown(() => guestInbox.return?.());
  await E(guest).send('@host', ['Working on it…'], [], []);
  const own = (await guestInbox.next()).value;
  // Started after the first delivery: the replay holds it, and may the live feed too.
  const hostDaemon = await makeDaemonAdapter(host);
  const hostInbox = hostDaemon.followMessages();
  t.teardown(() => hostInbox.return?.());
  void followMail({ isOwnMessage: hostDaemon.isOwnMessage, followMessages: () => hostInbox }, {
    onOwn: () => {},
    onRevision: (record, shown) => show({ number: record.number, from: 'fae', to: 'you', text: messageText(record) }, shown),
  }).catch(() => {});
  await until(() => statuses.includes('fae: Working on it…'));

  await E(guest).editMessage(own.number, ['Working on it… calling greet'], [], [], { done: false });
  await until(() => statuses.includes('fae: Working on it… calling greet'));
  await E(guest).editMessage(own.number, ['Bonjour, Ada!'], [], [], { done: true });
  await until(() => transcript.length === 1);
  await E(guest).editMessage(own.number, ['Bonjour, Ada !'], [], []);
  // Mail is shown in order: once this is, everything before it was.
  await E(guest).send('@host', ['Anything else?'], [], []);
  await until(() => transcript.includes('fae: Anything else?'));

  // The placeholder and what followed it were progress: the answer is printed once, whole.
  t.deepEqual(transcript, [
    'fae: Bonjour, Ada!',
    'fae (edited): Bonjour, Ada !',
    'fae: Anything else?',
  ]);
  t.deepEqual(statuses, ['fae is thinking', 'fae: Working on it…', 'fae: Working on it… calling greet', 'fae is thinking']);
});

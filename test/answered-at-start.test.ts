// What fae's inbox says of its replies as fae starts (answered-at-start.ts):
// which messages were answered, which unfinished progress replies the
// replayed turns take over, and which are stale (their message answered
// in another reply, or gone), to be finished.
import test from 'ava';
import type { InboxMessage } from '../src/daemon/adapter.js';
import { readAtStart, staleReplyText } from '../src/agent/turn/answered-at-start.js';
import { WORKING } from '../src/agent/turn/progress-reply.js';

const message = (number: bigint, fields: { own?: boolean; id?: string; replyTo?: string; text: string; done?: boolean }) =>
  harden({
    number,
    type: 'package',
    from: fields.own ? 'fae' : 'alice',
    to: fields.own ? 'alice' : 'fae',
    date: new Date(0).toISOString(),
    strings: [fields.text],
    names: [],
    ids: [],
    ...(fields.id === undefined ? {} : { messageId: fields.id }),
    ...(fields.replyTo === undefined ? {} : { replyTo: fields.replyTo }),
    ...(fields.done === undefined ? {} : { done: fields.done }),
  }) as unknown as InboxMessage;

test('answered, taken over, stale: what each own reply left at a restart is', async t => {
  const messages = [
    message(1n, { id: 'waiting', text: 'a question fae was working on' }),
    message(2n, { own: true, replyTo: 'waiting', text: `${WORKING} calling list`, done: false }),
    message(3n, { id: 'answered', text: 'a question answered' }),
    message(4n, { own: true, replyTo: 'answered', text: WORKING, done: false }),
    message(5n, { own: true, replyTo: 'answered', text: 'The answer, in a reply of its own.', done: true }),
    // Its message is gone from the inbox (dismissed): it comes no more.
    message(6n, { own: true, replyTo: 'gone', text: WORKING, done: false }),
    // Where replies cannot be edited (no `done`), a "Working on it…" is told by its words.
    message(7n, { id: 'may', text: 'a question on May' }),
    message(8n, { own: true, replyTo: 'may', text: WORKING }),
  ];
  const atStart = await readAtStart({ listMessages: async () => harden(messages), isOwnMessage: m => m.from === 'fae' });
  t.deepEqual([...atStart.answered], [['answered', 'The answer, in a reply of its own.']]);
  t.deepEqual([...atStart.unfinished], [
    ['waiting', { copy: 2n, text: `${WORKING} calling list` }],
    ['may', { copy: 8n, text: WORKING }],
  ]);
  t.deepEqual(atStart.stale, [
    { copy: 4n, text: WORKING, answered: true },
    { copy: 6n, text: WORKING, answered: false },
  ]);
  t.regex(staleReplyText({ answered: true }), /my answer is in another reply/);
  t.regex(staleReplyText({ answered: false }), /nothing more comes here/);
});

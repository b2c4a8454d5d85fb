// The progress reply (src/agent/turn/progress-reply.ts) against a daemon adapter
// that records what fae posts and edits: once a reply is the answer
// (done), no edit marks it not done again, whatever was under way; an
// earlier answer being redone changes only after the grace a new reply
// waits for.
import test from 'ava';
import type { DaemonAdapter, InboxMessage } from '../src/daemon/adapter.js';
import { makeProgressReplies } from '../src/agent/turn/progress-reply.js';
import { makeOwnCopyWaits } from '../src/agent/turn/own-copy-waits.js';
import { makeLogger } from '../src/logging/log.js';

/** The edits fae makes, in order: which copy, what text, whether done. */
const recordingDaemon = () => {
  const edits: { copy: bigint; text: string; done: boolean }[] = [];
  const daemon = {
    canEdit: true,
    reply: async () => {},
    edit: async (copy: bigint, strings: readonly string[], done: boolean) => {
      // An edit takes a moment, as a daemon round trip does.
      await new Promise(resolve => setTimeout(resolve, 5));
      edits.push({ copy, text: strings.join(''), done });
    },
  } as unknown as DaemonAdapter;
  return { daemon, edits };
};

const message = harden({ number: 4n, messageId: 'm4', replyTo: undefined, done: true }) as unknown as InboxMessage;
const settle = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

test('a redone answer that streams and ends at once stays done: no edit marks it not done afterwards', async t => {
  const { daemon, edits } = recordingDaemon();
  const logger = makeLogger({ redact: text => text, write: () => {} });
  const replies = makeProgressReplies(daemon, { afterMs: 1, logger, copies: makeOwnCopyWaits() });
  // An edit of a question whose earlier answer is fae's own copy #7.
  const progress = replies.start(message, Promise.resolve(7n));
  // Past the grace and the pause between edits: the next text is edited at once.
  await settle(1100);
  progress.text('The new');
  await settle(2);
  progress.text(' answer');
  t.true(await progress.answer(['The new answer']));
  // Longer than the pause between edits: any edit still scheduled would have come.
  await settle(1500);
  t.deepEqual(edits.at(-1), { copy: 7n, text: 'The new answer', done: true });
  t.false(edits.slice(edits.findIndex(edit => edit.done)).some(edit => !edit.done));
});

test('an earlier answer being redone is left as it is until the grace has passed', async t => {
  const { daemon, edits } = recordingDaemon();
  const logger = makeLogger({ redact: text => text, write: () => {} });
  const replies = makeProgressReplies(daemon, { afterMs: 60_000, logger, copies: makeOwnCopyWaits() });
  const progress = replies.start(message, Promise.resolve(7n));
  progress.text('partial');
  t.true(await progress.answer(['whole']));
  // A fast redo: only the answer, no partial text in between.
  t.deepEqual(edits, [{ copy: 7n, text: 'whole', done: true }]);
});

test('a reply posted after text streamed in says fae is working: the start of an answer never stands as a message of its own', async t => {
  for (const canEdit of [true, false]) {
    const posted: string[] = [];
    const daemon = {
      canEdit,
      reply: async (_number: bigint, strings: readonly string[]) => {
        posted.push(strings.join(''));
      },
      edit: async () => {},
    } as unknown as DaemonAdapter;
    const logger = makeLogger({ redact: text => text, write: () => {} });
    const replies = makeProgressReplies(daemon, { afterMs: 1, logger, copies: makeOwnCopyWaits() });
    const progress = replies.start(message, undefined);
    progress.text('Bonjour Ada, je suis');
    for (let i = 0; i < 1000 && posted.length === 0; i += 1) await settle(1);
    t.deepEqual(posted, ['Working on it…'], `canEdit: ${canEdit}`);
    progress.abandon();
  }
});

test('between the steps in which a server tells of its reading, the reply says the model is still reading, not that fae waits', async t => {
  const { daemon, edits } = recordingDaemon();
  const logger = makeLogger({ redact: text => text, write: () => {} });
  const replies = makeProgressReplies(daemon, { afterMs: 1, logger, copies: makeOwnCopyWaits(), quietMs: 20 });
  const progress = replies.start(message, Promise.resolve(7n));
  progress.waiting();
  progress.reading({ processed: 2048, total: 3141 });
  const said = 'Working on it… the model is still reading the conversation (65% when it last said)';
  for (let i = 0; i < 5000 && !edits.some(edit => edit.text === said); i += 1) await settle(1);
  const texts = edits.map(edit => edit.text);
  t.true(texts.includes('Working on it… the model is reading the conversation, 65%.'), texts.join(' | '));
  t.true(texts.includes(said), texts.join(' | '));
  t.false(edits.some(edit => edit.text.includes('still waiting for the model')));
  progress.abandon();
});

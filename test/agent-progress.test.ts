// Progress in one reply (issue 16): a turn that has not answered after
// FAE_PROGRESS_AFTER_MS gets one "Working on it…" reply; where fae can edit
// what it sent (August) that reply follows the turn, marked not done, and
// becomes the answer, done: the host's transcript holds one message for the
// question. Elsewhere one interim reply, then the answer on its own. A fast
// turn gets no progress reply.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { E } from '@endo/far';
import { makePromiseKit } from '@endo/promise-kit';
import { startFaeInDaemon } from './support/fae-harness.js';
import { makeScriptedProvider, type ScriptedReply } from './support/scripted-provider.js';
import { dialect, messageText, type MessageRecord } from './support/daemon.js';
import { WORKING } from '../src/agent/turn/progress-reply.js';
import { until } from './support/until.js';

const READY = 'Fae agent ready.';
const canEdit = dialect === 'aug';


const startWith = async (t: ExecutionContext, steps: ScriptedReply[], afterMs: number, latencyMs?: number) => {
  t.timeout(120_000);
  const llm = makeScriptedProvider(steps);
  const started = await startFaeInDaemon({ provider: llm.provider, env: { FAE_PROGRESS_AFTER_MS: String(afterMs) }, latencyMs });
  t.teardown(() => started.daemon.stop());
  await started.nextFromFae();
  /** fae's messages in the host's inbox now, the ready message left out. */
  const fromFae = async (): Promise<MessageRecord[]> => {
    const faeId: string = await E(started.host).identify('fae');
    const all: MessageRecord[] = await E(started.host).listMessages();
    return all.filter(m => m.from.includes(faeId.split(':')[0]) && !messageText(m).startsWith(READY));
  };
  const shown = async () => (await fromFae()).map(m => messageText(m));
  return { ...started, llm, fromFae, shown };
};

test('a slow turn shows its progress in one reply, which becomes the answer', async t => {
  const seen = makePromiseKit<void>();
  const world = await startWith(
    t,
    [
      { toolCalls: [{ name: 'list', arguments: {} }] },
      // The model answers only once the host has seen the progress.
      async () => {
        await seen.promise;
        return { text: 'Here is the answer.' };
      },
    ],
    50,
  );
  await E(world.host).send('fae', ['a slow question'], [], []);
  const progress = `${WORKING} calling list`;
  const showsProgress = await until(async () => (await world.shown()).includes(progress));
  t.true(showsProgress, JSON.stringify(await world.shown()) + world.logs.join('\n'));
  seen.resolve();
  t.true(await until(async () => (await world.shown()).includes('Here is the answer.')), 'answer shown');
  await until(async () => world.logs.some(line => line.includes('message-done')));
  if (canEdit) {
    // One message for the question: the progress reply, edited into the answer and marked done.
    const mine = await world.fromFae();
    t.deepEqual(mine.map(messageText), ['Here is the answer.']);
    t.not((mine[0] as { done?: boolean }).done, false);
    const history: { done: boolean }[] = await E(world.host).messageHistory(mine[0].number);
    t.true(history.some(revision => revision.done === false), JSON.stringify(history, (k, v) => (typeof v === 'bigint' ? String(v) : v)));
  } else {
    t.deepEqual(await world.shown(), [progress, 'Here is the answer.']);
  }
});

test('a fast turn gets its answer and no progress reply', async t => {
  const world = await startWith(t, [{ text: 'Quick answer.' }], 5000);
  await E(world.host).send('fae', ['a quick question'], [], []);
  t.true(await until(async () => world.logs.some(line => line.includes('message-done'))));
  t.deepEqual(await world.shown(), ['Quick answer.']);
  t.false(world.logs.some(line => line.includes('progress-posted')));
});

test('a progress reply of a turn the model answered by a tool of its own says it is done', async t => {
  const seen = makePromiseKit<void>();
  const world = await startWith(
    t,
    [
      async request => {
        await seen.promise;
        // The message's number, as fae's heading gives it.
        const number = Number(/Message #(\d+)/.exec(request.messages.filter(m => m.role === 'user').at(-1)?.content ?? '')?.[1]);
        return { toolCalls: [{ name: 'reply', arguments: { messageNumber: number, strings: ['Answered by reply.'] } }] };
      },
      { text: '' },
    ],
    50,
  );
  await E(world.host).send('fae', ['another question'], [], []);
  t.true(await until(async () => (await world.shown()).includes(WORKING)));
  seen.resolve();
  t.true(await until(async () => world.logs.some(line => line.includes('message-done'))));
  const shown = await world.shown();
  t.true(shown.includes('Answered by reply.'));
  t.true(shown.includes(canEdit ? 'Done (answered in another message).' : WORKING));
});

test('a progress reply a restart left unfinished is taken over by the replayed turn: never a second "Working on it…"', async t => {
  // The model hangs until fae is restarted; the replayed turn answers.
  const world = await startWith(t, [{ hang: true }], 50);
  await E(world.host).send('fae', ['a question fae will be restarted on'], [], []);
  t.true(await until(async () => (await world.shown()).includes(WORKING)), 'the progress reply was posted');
  world.llm.push({ text: 'The answer after the restart.' });
  await world.daemon.restart();
  t.true(await until(async () => (await world.shown()).includes('The answer after the restart.')));
  await until(async () => world.logs.some(line => line.includes('message-done')));
  const mine = await world.fromFae();
  if (canEdit) {
    // One message for the question: the reply from before the restart, edited into the answer, done.
    t.deepEqual(mine.map(m => [messageText(m), (m as { done?: boolean }).done]), [['The answer after the restart.', true]]);
  } else {
    // It cannot be edited: it stays, and the answer follows; no second "Working on it…".
    t.deepEqual(mine.map(messageText), [WORKING, 'The answer after the restart.']);
  }
});

test('with a slow daemon, the reply a restart left unfinished is still there to take over when its turn opens', async t => {
  // Each daemon call takes a while, so the replayed turn opens after fae's own copy of its reply is read.
  const world = await startWith(t, [{ hang: true }], 50, 20);
  await E(world.host).send('fae', ['a question asked of a slow daemon'], [], []);
  t.true(await until(async () => (await world.shown()).includes(WORKING)), 'the progress reply was posted');
  world.llm.push({ text: 'Answered, slowly.' });
  await world.daemon.restart();
  t.true(await until(async () => (await world.shown()).includes('Answered, slowly.')));
  await until(async () => world.logs.some(line => line.includes('message-done')));
  // Its reply was not taken from under it (dismissed before it could be edited).
  t.false(world.logs.some(line => line.includes('progress-failed') && line.includes('No such message')), world.logs.filter(line => line.includes('progress')).join('\n'));
  const mine = await world.fromFae();
  t.deepEqual(mine.map(messageText), canEdit ? ['Answered, slowly.'] : [WORKING, 'Answered, slowly.']);
});

test('a progress reply whose message no longer waits is finished at the restart, saying so (where fae can edit)', async t => {
  const world = await startWith(t, [{ hang: true }], 50);
  await E(world.host).send('fae', ['a question that will be gone'], [], []);
  t.true(await until(async () => (await world.shown()).includes(WORKING)), 'the progress reply was posted');
  // The question leaves fae's inbox while the turn hangs: after the restart nothing answers it.
  const inFaeInbox: MessageRecord[] = await E(world.fae).listMessages();
  const question = inFaeInbox.find(m => messageText(m) === 'a question that will be gone');
  if (question === undefined) return t.fail('the question is not in fae\'s inbox');
  await E(world.fae).dismiss(question.number);
  await world.daemon.restart();
  await E(await E(world.host).lookup('controller-for-fae')).whenStarted();
  const finished = '(I was restarted while working on this, and it no longer waits for me: nothing more comes here.)';
  if (canEdit) {
    t.true(await until(async () => (await world.shown()).includes(finished)), JSON.stringify(await world.shown()));
    t.deepEqual((await world.fromFae()).map(m => (m as { done?: boolean }).done), [true]);
  } else {
    await until(async () => world.logs.filter(line => line.includes(' started ')).length >= 2);
    t.deepEqual(await world.shown(), [WORKING], 'a reply that cannot be edited stays as it was');
  }
});

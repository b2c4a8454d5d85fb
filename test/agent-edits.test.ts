// Edits after the answer (issue 16): on August fae keeps its latest
// answered messages open to their sender's edits for a while; an edit
// gets a new turn whose answer replaces fae's earlier answer in place, so
// the transcript pairs the edited question with its answer. Bounded per
// thread and in time; a restart answers nothing twice. Where fae cannot
// edit its answers (February, May) answered messages are dismissed at once.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { E } from '@endo/far';
import { makePromiseKit } from '@endo/promise-kit';
import { startFaeInDaemon } from './support/fae-harness.js';
import { lastUserWords, makeScriptedProvider, type RecordedRequest } from './support/scripted-provider.js';
import { dialect, messageText, type MessageRecord } from './support/daemon.js';
import { until } from './support/until.js';

const READY = 'Fae agent ready.';
const canEdit = dialect === 'aug';


const startEditable = async (t: ExecutionContext, env: Record<string, string> = {}) => {
  t.timeout(120_000);
  // "re: " and the first line of the latest user message (an edit's note follows on its own line).
  const llm = makeScriptedProvider(
    Array.from({ length: 50 }, () => (request: RecordedRequest) => ({
      text: `re: ${lastUserWords(request.messages).split('\n')[0]}`,
    })),
  );
  const started = await startFaeInDaemon({ provider: llm.provider, env: { FAE_EDITABLE_TURNS: '2', ...env } });
  t.teardown(() => started.daemon.stop());
  await started.nextFromFae();
  const faeId: string = await E(started.host).identify('fae');
  const isFae = (m: MessageRecord) => m.from.includes(faeId.split(':')[0]);
  const hostInbox = async (): Promise<MessageRecord[]> => E(started.host).listMessages();
  /** fae's answers in the host's inbox, as text. */
  const answers = async () => (await hostInbox()).filter(m => isFae(m) && !messageText(m).startsWith(READY)).map(messageText);
  /** Asks; resolves with the host's own copy of the question once fae's answer to it is in. */
  const ask = async (text: string) => {
    await E(started.host).send('fae', [text], [], []);
    t.true(await until(async () => (await answers()).includes(`re: ${text}`)));
    const mine = (await hostInbox()).find(m => !isFae(m) && messageText(m) === text);
    if (mine === undefined) throw Error(`the host has no copy of ${text}`);
    return mine;
  };
  const edit = (question: MessageRecord, text: string) =>
    E(started.host).editMessage(question.number, [text], [], [], { done: true });
  /** Messages still in fae's inbox with this text. */
  const inFaeInbox = async (text: string) =>
    ((await E(started.fae).listMessages()) as MessageRecord[]).some(m => messageText(m) === text);
  return { ...started, llm, answers, ask, edit, inFaeInbox };
};

test('an edit of an answered message gets a new answer, in place of the old one', async t => {
  const world = await startEditable(t);
  const question = await world.ask('what is two and two');
  if (!canEdit) {
    // No edits here: the answered message is dismissed as ever.
    t.true(await until(async () => !(await world.inFaeInbox('what is two and two'))));
    return;
  }
  await world.edit(question, 'what is three and three');
  t.true(await until(async () => (await world.answers()).includes('re: what is three and three')));
  // One answer for the question, now answering its edited text.
  t.deepEqual(await world.answers(), ['re: what is three and three']);
  const last = world.llm.requests.at(-1);
  t.true(JSON.stringify(last?.messages).includes('The sender edited this message'));
  // The conversation remembers both the question and its edit.
  t.true(JSON.stringify(last?.messages).includes('what is two and two'));
  t.is(lastUserWords(last?.messages ?? []).split('\n')[0], 'what is three and three');
});

test('a restart answers no kept message again', async t => {
  const world = await startEditable(t);
  await world.ask('remember me');
  await world.daemon.restart();
  await E(await E(world.host).lookup('controller-for-fae')).whenStarted();
  await world.ask('and me');
  t.deepEqual(await world.answers(), ['re: remember me', 're: and me']);
  t.is(world.llm.requests.filter(r => lastUserWords(r.messages) === 'remember me').length, 1);
});

test('past FAE_EDITABLE_TURNS in a thread the oldest answered message is dismissed, and so is any after FAE_EDITABLE_MS', async t => {
  const world = await startEditable(t, { FAE_EDITABLE_TURNS: '1', FAE_EDITABLE_MS: canEdit ? '600000' : '1' });
  const first = await world.ask('first');
  await world.ask('second');
  t.true(await until(async () => !(await world.inFaeInbox('first'))));
  // Dismissed by fae: the daemon refuses its sender's edit.
  await t.throwsAsync(() => world.edit(first, 'first, edited'));
  if (!canEdit) return;
  t.true(await world.inFaeInbox('second'));

  const timed = await startEditable(t, { FAE_EDITABLE_MS: '50' });
  await timed.ask('short-lived');
  t.true(await until(async () => !(await timed.inFaeInbox('short-lived'))));
});

test('an edit of a message whose answer came as a progress reply replaces that reply in place', async t => {
  t.timeout(120_000);
  const seen = makePromiseKit<void>();
  let first = true;
  const llm = makeScriptedProvider(
    Array.from({ length: 10 }, () => async (request: RecordedRequest) => {
      // The first answer waits until its progress reply is showing.
      if (first) {
        first = false;
        await seen.promise;
      }
      return { text: `re: ${lastUserWords(request.messages).split('\n')[0]}` };
    }),
  );
  const started = await startFaeInDaemon({ provider: llm.provider, env: { FAE_PROGRESS_AFTER_MS: '50', FAE_EDITABLE_TURNS: '2' } });
  t.teardown(() => started.daemon.stop());
  await started.nextFromFae();
  const faeId: string = await E(started.host).identify('fae');
  const isFae = (m: MessageRecord) => m.from.includes(faeId.split(':')[0]);
  const hostInbox = async (): Promise<MessageRecord[]> => E(started.host).listMessages();
  const answers = async () => (await hostInbox()).filter(m => isFae(m) && !messageText(m).startsWith(READY)).map(messageText);
  await E(started.host).send('fae', ['a slow question'], [], []);
  t.true(await until(async () => (await answers()).some(text => text.startsWith('Working on it'))));
  seen.resolve();
  t.true(await until(async () => (await answers()).includes('re: a slow question')));
  await until(async () => started.logs.some(line => line.includes('message-done')));
  if (!canEdit) return;
  const question = (await hostInbox()).find(m => !isFae(m) && messageText(m) === 'a slow question');
  await E(started.host).editMessage(question!.number, ['a slow question, edited'], [], [], { done: true });
  t.true(await until(async () => (await answers()).includes('re: a slow question, edited')));
  t.deepEqual(await answers(), ['re: a slow question, edited']);
  t.false(started.logs.some(line => line.includes('progress-failed')));
});

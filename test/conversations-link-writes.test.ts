// The links of fae's own copies that no next turn comes to store
// (src/conversations/own-copies/link-writes.ts): after a pause they are added to the
// record of their conversation's latest turn, and the copies dismissed, so
// that fae's inbox, and what it holds of it, does not grow with every
// correspondent who stops writing; a turn within the pause carries them
// itself, with no write more, and a turn that replied waits briefly for the
// copy of its own answer, to carry its link too.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import type { MessageRecord } from '../src/daemon/endo-types.js';
import type { OpenTurn } from '../src/conversations/open-turns.js';
import { SYSTEM_PROMPT, answer, mail, requestTexts, setUpConversations } from './support/conversation-turns.js';
import { faultyPowers, makeFaults } from './support/faulty-powers.js';
import { until } from './support/until.js';
import { nodeOf } from './support/stored-nodes.js';
import type { Conversations } from '../src/conversations/conversations.js';

const PAUSE_MS = 20;
const ANSWER_WAIT_MS = 200;

/**
 * Conversations whose own copies wait PAUSE_MS; `again()` makes others on
 * the same store, as a restart does. Counts the records stored, and the
 * own copies dismissed.
 */
const setUp = async (t: ExecutionContext) => {
  const faults = makeFaults();
  const stored: string[] = [];
  faults.refuse('storeValue', ([, path]) => {
    if (Array.isArray(path) && path[0] === 'conversations') stored.push(path.join('/'));
    return false;
  });
  const dismissed: bigint[] = [];
  const { conversations, again } = await setUpConversations(t, {
    wrap: powers => faultyPowers(powers, faults),
    options: {
      dismissOwnCopies: async numbers => {
        dismissed.push(...numbers);
      },
      linkPauseMs: PAUSE_MS,
      answerCopyWaitMs: ANSWER_WAIT_MS,
    },
  });
  return { conversations, again, stored, dismissed, faults };
};

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

/** After a restart (`again`), the texts of the request of a turn opened for `message` (then abandoned). */
const requestAfterRestart = async (again: () => Promise<Conversations>, message: MessageRecord, who: string, text: string) => {
  const restarted = await again();
  const reply = (await restarted.open(message, who, text))!;
  const texts = await requestTexts(reply);
  reply.abandon();
  return texts;
};

test('copies that no next turn comes for are linked in their latest turn record and dismissed; after a restart a reply to one finds its thread', async t => {
  const { conversations, again, dismissed } = await setUp(t);
  const names = ['ada', 'bo', 'cy'];
  const copies = new Map<string, MessageRecord>();
  for (const name of names) {
    await answer((await conversations.open(mail(`${name}-q`), name, `${name} asks`))!);
    const copy = mail(`${name}-answer`, `${name}-q`);
    copies.set(name, copy);
    await conversations.noteOwnMessage(copy, name);
  }
  t.true(await until(async () => dismissed.length === names.length, 10_000));
  t.deepEqual(
    [...dismissed].sort(),
    [...copies.values()].map(copy => copy.number).sort(),
  );
  // Nothing in memory knows the copies now: the store does.
  const texts = await requestAfterRestart(again, mail('bo-again', 'bo-answer'), 'bo', 'about your answer');
  t.deepEqual(texts, [SYSTEM_PROMPT, 'bo asks', 'answer to bo asks', 'about your answer']);
});

test('a turn of the conversation within the pause carries the links itself: nothing more is written', async t => {
  const { conversations, stored, dismissed } = await setUp(t);
  await answer((await conversations.open(mail('q1'), 'ada', 'first'))!);
  const next = (await conversations.open(mail('q2'), 'ada', 'second'))!;
  const copy = mail('a1', 'q1');
  await conversations.noteOwnMessage(copy, 'ada');
  // The pause passes, several times, while the next turn is open.
  await sleep(PAUSE_MS * 5);
  t.deepEqual(dismissed, []);
  await answer(next);
  t.deepEqual(dismissed, [copy.number]);
  await sleep(PAUSE_MS * 5);
  t.is(stored.length, 2, 'one record per turn');
  t.deepEqual(dismissed, [copy.number]);
});

test('a refused write keeps the copy, whose link the next turn then stores', async t => {
  const { conversations, dismissed, faults } = await setUp(t);
  await answer((await conversations.open(mail('r1'), 'ada', 'first'))!);
  faults.refuse('storeValue');
  const copy = mail('ra1', 'r1');
  await conversations.noteOwnMessage(copy, 'ada');
  t.true(await until(async () => faults.refused.length > 0, 10_000));
  t.deepEqual(dismissed, []);
  faults.allow('storeValue');
  await answer((await conversations.open(mail('r2'), 'ada', 'second'))!);
  t.deepEqual(dismissed, [copy.number]);
});

test('however many correspondents stop writing, none leaves an own copy waiting', async t => {
  const { conversations, dismissed } = await setUp(t);
  const count = 40;
  for (let i = 0; i < count; i += 1) {
    const name = `writer-${i}`;
    await answer((await conversations.open(mail(`${name}-q`), name, `${name} asks`))!);
    await conversations.noteOwnMessage(mail(`${name}-a`, `${name}-q`), name);
  }
  t.true(await until(async () => dismissed.length === count, 20_000));
});

/**
 * Answers the turn `opened` with a reply, whose own `copy` comes while the
 * turn waits for it (after `delayMs`), as the inbox reads on.
 */
const answeredWithCopy = async (
  conversations: Conversations,
  opened: Promise<OpenTurn | undefined>,
  copy: MessageRecord,
  delayMs = 0,
) => {
  const turn = (await opened)!;
  turn.messages.push(harden({ role: 'assistant', content: 'the answer' }));
  const finished = turn.finish(undefined, true);
  await sleep(delayMs);
  await conversations.noteOwnMessage(copy, 'ada');
  await finished;
};

test('a turn that replied waits for the own copy of its answer and stores its link itself: one write, and the copy dismissed', async t => {
  const { conversations, again, stored, dismissed } = await setUp(t);
  const copy = mail('wa1', 'w1');
  await answeredWithCopy(conversations, conversations.open(mail('w1'), 'ada', 'a question'), copy, PAUSE_MS);
  t.deepEqual(dismissed, [copy.number]);
  await sleep(PAUSE_MS * 5);
  t.is(stored.length, 1, 'the turn and the link in one record');
  // After a restart a reply to the answer finds its thread.
  const texts = await requestAfterRestart(again, mail('w2', 'wa1'), 'ada', 'about that');
  t.deepEqual(texts, [SYSTEM_PROMPT, 'a question', 'the answer', 'about that']);
});

test('an answer whose own copy does not come in time is stored without it, and linked when the copy comes', async t => {
  const { conversations, stored, dismissed } = await setUp(t);
  const turn = (await conversations.open(mail('x1'), 'ada', 'a question'))!;
  turn.messages.push(harden({ role: 'assistant', content: 'the answer' }));
  await turn.finish(undefined, true);
  t.is(stored.length, 1);
  t.deepEqual(dismissed, []);
  const copy = mail('xa1', 'x1');
  await conversations.noteOwnMessage(copy, 'ada');
  t.true(await until(async () => dismissed.length === 1, 10_000));
  t.is(stored.length, 2, 'the late link in a write of its own');
});

test('after a restart, the copy of an answer whose link is stored is not linked again, though it comes while its question is taken up again', async t => {
  const { conversations, again, faults } = await setUp(t);
  // The `sent` of every turn record written, from the values stored.
  const sentOf: string[][] = [];
  faults.refuse('storeValue', ([value, path]) => {
    if (!Array.isArray(path) || path[0] !== 'conversations') return false;
    const node = nodeOf(value) as { turns?: { sent?: string[] }[]; sent?: string[] };
    sentOf.push((node.turns?.at(-1) ?? node).sent ?? []);
    return false;
  });
  const copy = mail('ra1', 'r1');
  await answeredWithCopy(conversations, conversations.open(mail('r1'), 'ada', 'a question'), copy);
  t.deepEqual(sentOf, [['ra1']]);
  // A restart reads the question (answered before, still in the inbox) and
  // the copy again: the copy comes while the question's turn is being
  // opened, before its conversation is read back.
  const restarted = await again();
  // The conversation's read-back waits, as on a daemon that answers slowly.
  const release = faults.hold('lookup');
  const reopening = restarted.open(mail('r1'), 'ada', 'a question');
  await sleep(PAUSE_MS);
  const noted = restarted.noteOwnMessage(copy, 'ada');
  await sleep(PAUSE_MS);
  release();
  await noted;
  t.is(await reopening, undefined, 'handled before');
  // The next turn stores its own answer's link, and only that.
  await answeredWithCopy(restarted, restarted.open(mail('r2'), 'ada', 'another question'), mail('ra2', 'r2'));
  await sleep(PAUSE_MS * 5);
  t.deepEqual(sentOf, [['ra1'], ['ra2']]);
});

// Turns of several conversations at once (src/conversations/): turns of
// different correspondents and threads are open at the same time, those
// of one conversation one after the other, in the order their messages
// came, each seeing the one before; each model request is measured
// against its own estimate; laneOf names the conversation a message will
// most likely open, without asking the daemon.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { makePromiseKit, type PromiseKit } from '@endo/promise-kit';
import type { ChatMessage, ChatResult } from '../providers/types.js';
import { makeRequestMeter } from '../src/conversations/requests/request-meter.js';
import { conversationKey } from '../src/conversations/threads.js';
import { SYSTEM_PROMPT, answer, mail, requestTexts, setUpConversations } from './support/conversation-turns.js';

const setUp = (t: ExecutionContext) => setUpConversations(t);

/** Whether `promise` is still pending once everything ready to run has run (a turn of the local daemon included). */
const pending = async (promise: Promise<unknown>) => {
  let settled = false;
  void promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await new Promise(resolve => setTimeout(resolve, 50));
  return !settled;
};

test('the meter learns from each request against its own estimate, however requests interleave', async t => {
  const meter = makeRequestMeter();
  const answers = new Map<readonly ChatMessage[], PromiseKit<ChatResult>>();
  const metered = meter.metered(
    harden({
      kind: 'openai',
      model: 'held',
      chat: (messages: readonly ChatMessage[]) => {
        const kit = makePromiseKit<ChatResult>();
        answers.set(messages, kit);
        return kit.promise;
      },
    }),
  );
  const reply = (inputTokens: number): ChatResult =>
    harden({ message: { role: 'assistant', content: '' }, usage: { inputTokens, outputTokens: 1 } });
  // Both prepared before either is sent, as two conversations' turns may be.
  const cache = { key: 'fae-test', stableMessages: 1 };
  const small = meter.prepared(harden([{ role: 'user', content: 'small' }]), { estimate: 100, cache });
  const large = meter.prepared(harden([{ role: 'user', content: 'large' }]), { estimate: 1_000, cache });
  const smallDone = metered.chat(small, harden([]));
  const largeDone = metered.chat(large, harden([]));
  answers.get(large)!.resolve(reply(2_000));
  await largeDone;
  t.is(meter.scale(100), 200, 'the large request cost twice its estimate');
  answers.get(small)!.resolve(reply(150));
  await smallDone;
  t.is(meter.scale(100), 150, 'the small request cost one and a half times its own estimate, not the large one’s');
});

test('two messages of one thread opened at once: the second opens when the first is done, and sees it; both are stored in that order', async t => {
  const { conversations, again } = await setUp(t);
  const firstOpening = conversations.open(mail('m1'), 'ada', 'first');
  const secondOpening = conversations.open(mail('m2'), 'ada', 'second');
  const first = (await firstOpening)!;
  t.true(await pending(secondOpening), 'the second turn waits while the first is open');
  t.deepEqual(await requestTexts(first), [SYSTEM_PROMPT, 'first']);
  await answer(first);
  const second = (await secondOpening)!;
  t.deepEqual(await requestTexts(second), [SYSTEM_PROMPT, 'first', 'answer to first', 'second']);
  await answer(second);
  // Read back from the store, as after a restart.
  const third = (await (await again()).open(mail('m3'), 'ada', 'third'))!;
  t.deepEqual(await requestTexts(third), [
    SYSTEM_PROMPT,
    'first',
    'answer to first',
    'second',
    'answer to second',
    'third',
  ]);
  third.abandon();
});

test('an abandoned turn lets the next one of its thread open, which does not see it', async t => {
  const { conversations } = await setUp(t);
  const firstOpening = conversations.open(mail('m1'), 'ada', 'first');
  const secondOpening = conversations.open(mail('m2'), 'ada', 'second');
  (await firstOpening)!.abandon();
  const second = (await secondOpening)!;
  t.deepEqual(await requestTexts(second), [SYSTEM_PROMPT, 'second']);
  await answer(second);
});

test('a message opened again while its first turn is open gets no second turn once the first is stored', async t => {
  const { conversations } = await setUp(t);
  const firstOpening = conversations.open(mail('m1'), 'ada', 'first');
  const replayOpening = conversations.open(mail('m1'), 'ada', 'first');
  await answer((await firstOpening)!);
  t.is(await replayOpening, undefined);
});

test('a fresh message waits for a reply of the same thread opened before it, though finding the reply’s thread takes a read of the store', async t => {
  const { conversations, again } = await setUp(t);
  await answer((await conversations.open(mail('root'), 'ada', 'root'))!);
  // After a restart, the reply's thread is found by reading the stored conversation back.
  const restarted = await again();
  const replyOpening = restarted.open(mail('reply', 'root'), 'ada', 'reply');
  const freshOpening = restarted.open(mail('fresh'), 'ada', 'fresh');
  const reply = (await replyOpening)!;
  t.true(await pending(freshOpening));
  t.deepEqual(await requestTexts(reply), [SYSTEM_PROMPT, 'root', 'answer to root', 'reply']);
  await answer(reply);
  const fresh = (await freshOpening)!;
  t.deepEqual((await requestTexts(fresh)).slice(-3), ['reply', 'answer to reply', 'fresh']);
  await answer(fresh);
});

test('a reply to a message still waiting for its turn continues that message’s thread', async t => {
  const { conversations } = await setUp(t);
  const firstOpening = conversations.open(mail('m1'), 'ada', 'first');
  const waitingOpening = conversations.open(mail('m2'), 'ada', 'second');
  const replyOpening = conversations.open(mail('m3', 'm2'), 'ada', 'about the second');
  await answer((await firstOpening)!);
  await answer((await waitingOpening)!);
  const reply = (await replyOpening)!;
  t.deepEqual(await requestTexts(reply), [
    SYSTEM_PROMPT,
    'first',
    'answer to first',
    'second',
    'answer to second',
    'about the second',
  ]);
  await answer(reply);
});

test('turns of different correspondents, and of different threads of one, are open at the same time', async t => {
  const { conversations } = await setUp(t);
  const [ada, bo, adaElsewhere] = await Promise.all([
    conversations.open(mail('a1'), 'ada', 'from ada'),
    conversations.open(mail('b1'), 'bo', 'from bo'),
    conversations.open(mail('a2', 'something fae sent on its own'), 'ada', 'ada elsewhere'),
  ]);
  // All three are open: each prepares its own request, seeing no other.
  t.deepEqual(await requestTexts(ada!), [SYSTEM_PROMPT, 'from ada']);
  t.deepEqual(await requestTexts(bo!), [SYSTEM_PROMPT, 'from bo']);
  t.deepEqual(await requestTexts(adaElsewhere!), [SYSTEM_PROMPT, 'ada elsewhere']);
  await Promise.all([answer(ada!), answer(bo!), answer(adaElsewhere!)]);
  t.is(conversations.status().conversations, 3);
});

test('forgetting a correspondent reaches each of their open turns, which then keep nothing, and no one else’s', async t => {
  const { conversations } = await setUp(t);
  const [ada, adaElsewhere, bo] = await Promise.all([
    conversations.open(mail('a1'), 'ada', 'from ada'),
    conversations.open(mail('a2', 'elsewhere'), 'ada', 'ada elsewhere'),
    conversations.open(mail('b1'), 'bo', 'from bo'),
  ]);
  t.is(await conversations.forget('ada'), 2);
  await Promise.all([answer(ada!), answer(adaElsewhere!), answer(bo!)]);
  t.is(conversations.status().conversations, 1, 'only bo’s is kept');
  const adaAgain = (await conversations.open(mail('a3'), 'ada', 'ada again'))!;
  t.deepEqual(await requestTexts(adaAgain), [SYSTEM_PROMPT, 'ada again']);
  adaAgain.abandon();
});

test('laneOf: the conversation a message will most likely open, from what fae holds', async t => {
  const { conversations } = await setUp(t);
  const main = conversationKey('ada', 'main');
  t.is(conversations.laneOf(mail('f1'), 'ada'), main, 'a fresh message: the main thread');
  const open = (await conversations.open(mail('r0'), 'ada', 'root'))!;
  t.is(conversations.laneOf(mail('f2', 'r0'), 'ada'), main, 'a reply to a message being answered: its thread');
  t.is(
    conversations.laneOf(mail('f3', 'r0'), 'bo'),
    conversationKey('bo', 'r0'),
    'another correspondent’s reply to it: a thread of their own',
  );
  const waiting = conversations.open(mail('r1'), 'ada', 'waiting');
  // Placed in line once everything ready to run has run.
  await pending(waiting);
  t.is(conversations.laneOf(mail('f4', 'r1'), 'ada'), main, 'a reply to a message waiting in line: its thread');
  await answer(open);
  await answer((await waiting)!);
  t.is(conversations.laneOf(mail('f5', 'r0'), 'ada'), main, 'a reply to an answered message: its thread');
  t.is(
    conversations.laneOf(mail('f6', 'unknown'), 'ada'),
    conversationKey('ada', 'unknown'),
    'a reply to a message in no thread: a new thread rooted there',
  );
  await answer((await conversations.open(mail('n1', 'unknown'), 'ada', 'new thread'))!);
  t.is(conversations.laneOf(mail('f7', 'n1'), 'ada'), conversationKey('ada', 'unknown'), 'a reply in that thread: that thread');
});

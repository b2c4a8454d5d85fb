// What a summary keeps of the ids of the turns it folds (compaction.ts):
// the latest EARLIER_IDS, so that a reply to one of them continues the
// thread; the others it lets go of, and says so, so that the index of ids
// (held.ts) holds none a conversation no longer holds.
import test from 'ava';
import type { ChatMessage, Provider } from '../providers/types.js';
import { makeCompaction } from '../src/conversations/requests/compaction.js';
import { EARLIER_IDS, freshConversation, holdsMessage, type Conversation } from '../src/conversations/conversation-state.js';
import { makeLogger } from '../src/logging/log.js';
import { makeRedactor } from '../src/logging/redact.js';

const summarizer: Provider = harden({
  kind: 'openai',
  model: 'test-model',
  chat: async () => harden({ message: { role: 'assistant', content: 'They talked.' } }),
});

/** Adds turns up to `last` to `conversation`, each a question with its id and an answer fae sent (its id too). */
const addTurns = (conversation: Conversation, last: number) => {
  for (let seq = conversation.nextSeq; seq <= last; seq += 1) {
    conversation.turns.push({
      seq,
      messageId: `question-${seq}`,
      messages: harden([
        { role: 'user', content: `question ${seq}: ${'words '.repeat(20)}` },
        { role: 'assistant', content: `answer ${seq}` },
      ]) as readonly ChatMessage[],
      sent: harden([`answer-${seq}`]),
    });
  }
  conversation.nextSeq = last + 1;
};

/** A conversation of `count` turns (addTurns). */
const conversationOf = (count: number): Conversation => {
  const conversation = freshConversation('k', 'correspondent', 'main');
  addTurns(conversation, count);
  return conversation;
};

/** A compaction whose summaries `provider` writes, pushing what each lets go of onto `letGo`. */
const compactionTelling = (letGo: string[][], provider: Provider = summarizer) =>
  makeCompaction({
    provider,
    limits: { contextTokens: 2000, maxTranscript: 10_000 },
    systemMessage: harden({ role: 'system', content: 'You are Fae.' }),
    redact: makeRedactor([]),
    logger: makeLogger({ redact: makeRedactor([]), write: () => {} }),
    amend: (_, change) => change(),
    onLetGo: (_, ids) => letGo.push([...ids]),
  });

const current = harden([{ role: 'user', content: 'and now?' }]) as readonly ChatMessage[];

test('a summary keeps the latest EARLIER_IDS ids of what it folds and tells which it lets go of', async t => {
  const letGo: string[][] = [];
  const compact = compactionTelling(letGo);
  const conversation = conversationOf(400);
  await compact(conversation, current, [], {});

  const foldedCount = 400 - conversation.turns.length;
  t.true(foldedCount * 2 > EARLIER_IDS, `${foldedCount} turns folded, more ids than are kept`);
  const folded = Array.from({ length: foldedCount }, (_, i) => [`question-${i + 1}`, `answer-${i + 1}`]).flat();
  t.deepEqual(conversation.earlier, folded.slice(-EARLIER_IDS));
  t.deepEqual(letGo.flat(), folded.slice(0, folded.length - EARLIER_IDS));
  // What is let go is what the conversation no longer holds, and the rest it holds still.
  t.true(letGo.flat().every(id => !holdsMessage(conversation, id)));
  t.true(conversation.earlier.every(id => holdsMessage(conversation, id)));
});

test('a second summary lets go of the oldest ids the first one kept', async t => {
  const letGo: string[][] = [];
  const compact = compactionTelling(letGo);
  const conversation = conversationOf(400);
  await compact(conversation, current, [], {});
  const keptFirst = conversation.earlier;
  const letGoFirst = letGo.flat();

  addTurns(conversation, 800);
  await compact(conversation, current, [], {});

  const letGoSecond = letGo.flat().slice(letGoFirst.length);
  t.true(letGoSecond.includes(keptFirst[0]), 'the oldest id kept by the first summary');
  t.true(letGoSecond.every(id => !holdsMessage(conversation, id)));
  t.is(conversation.earlier.length, EARLIER_IDS);
});

test('a failed summary folds nothing and lets go of nothing', async t => {
  const letGo: string[][] = [];
  const silent: Provider = harden({ ...summarizer, chat: async () => harden({ message: { role: 'assistant', content: '' } }) });
  const compact = compactionTelling(letGo, silent);
  const conversation = conversationOf(400);
  await compact(conversation, current, [], {});
  t.is(conversation.turns.length, 400);
  t.deepEqual(letGo, []);
});

// The store's index finds a correspondent's stored conversations without a
// scan of everyone's, as threads are stored and removed.
import test from 'ava';
import { makeStoreIndex } from '../src/conversations/store/store-index.js';
import { conversationKey } from '../src/conversations/threads.js';

test("a correspondent's keys are found as threads come and go", t => {
  const index = makeStoreIndex();
  const main = conversationKey('alice', 'main');
  const side = conversationKey('alice', 'side');
  const other = conversationKey('bob', 'main');
  index.addGeneration(main, 1);
  index.addGeneration(other, 1);
  t.deepEqual(index.keysOf('alice'), [main]);
  index.addGeneration(side, 1);
  index.addGeneration(main, 2);
  t.deepEqual([...index.keysOf('alice')].sort(), [main, side].sort());
  index.forget(main);
  t.deepEqual(index.keysOf('alice'), [side]);
  index.forget(side);
  t.deepEqual(index.keysOf('alice'), []);
  t.deepEqual(index.keysOf('bob'), [other]);
  t.is(index.count(), 1);
});

test('a conversation’s generations, newest first, the live one and those older, and whether it was read', t => {
  const index = makeStoreIndex();
  const key = conversationKey('alice', 'main');
  t.false(index.isStored(key));
  // Judging a key with nothing stored keeps nothing.
  index.judge(key);
  t.false(index.isStored(key));
  t.false(index.judged(key));
  index.addGeneration(key, 1);
  index.addGeneration(key, 3);
  index.addGeneration(key, 2);
  t.deepEqual(index.generationsOf(key), [3, 2, 1]);
  t.false(index.judged(key));
  t.is(index.liveOf(key), undefined);
  t.deepEqual(index.olderThanLive(key), []);
  index.judge(key, 3);
  t.true(index.judged(key));
  t.is(index.liveOf(key), 3);
  t.deepEqual(index.olderThanLive(key), [2, 1]);
  index.removeGeneration(key, 1);
  index.removeGeneration(key, 2);
  t.deepEqual(index.generationsOf(key), [3]);
  t.deepEqual(index.olderThanLive(key), []);
  t.deepEqual(index.keys(), [key]);
  index.clear();
  t.false(index.isStored(key));
  t.is(index.count(), 0);
});

// The store's index finds a correspondent's stored conversations without a
// scan of everyone's, as threads are stored and removed.
import test from 'ava';
import { makeStoreIndex } from '../src/conversations/store-index.js';
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

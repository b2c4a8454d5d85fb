// The conversations fae holds in memory, and the index of message ids
// beside them, stay bounded however much mail comes.
import test from 'ava';
import { ID_LIMIT, makeHeldConversations } from '../src/conversations/held.js';

const conversation = (n: number) => ({ key: `key-${n}`, correspondent: `writer-${n}` });

test('the id index keeps the latest ID_LIMIT ids and forgets the oldest', t => {
  const held = makeHeldConversations(4);
  for (let n = 0; n < ID_LIMIT * 2; n += 1) held.noteId(`id-${n}`, `key-${n % 10}`);
  t.is(held.idCount(), ID_LIMIT);
  t.is(held.keyOfId('id-0'), undefined);
  t.is(held.keyOfId(`id-${ID_LIMIT * 2 - 1}`), `key-${(ID_LIMIT * 2 - 1) % 10}`);
});

test('an id noted again is kept as the latest, with its new conversation', t => {
  const held = makeHeldConversations(4);
  held.noteId('first', 'key-a');
  for (let n = 1; n < ID_LIMIT; n += 1) held.noteId(`id-${n}`, 'key-b');
  held.noteId('first', 'key-c');
  held.noteId('one more', 'key-b');
  t.is(held.keyOfId('first'), 'key-c');
  t.is(held.keyOfId('id-1'), undefined);
});

test('conversations held without a pin are bounded; pinned ones stay', t => {
  const held = makeHeldConversations<ReturnType<typeof conversation>>(4);
  const release = held.pin(conversation(0));
  for (let n = 1; n <= 20; n += 1) held.put(conversation(n));
  t.truthy(held.get('key-0'));
  t.is(held.get('key-1'), undefined);
  t.truthy(held.get('key-20'));
  release();
  t.deepEqual(held.pinnedKeys(), []);
});

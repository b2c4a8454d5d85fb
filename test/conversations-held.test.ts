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

test('a conversation that falls out of memory takes its ids with it; a pinned one, or one noted elsewhere since, keeps them', t => {
  const idsOf = (c: ReturnType<typeof conversation>) => [`${c.key}/a`, `${c.key}/b`];
  const held = makeHeldConversations<ReturnType<typeof conversation>>(4, { idsOf });
  const note = (c: ReturnType<typeof conversation>) => {
    held.put(c);
    for (const id of idsOf(c)) held.noteId(id, c.key);
  };
  const release = held.pin(conversation(0));
  note(conversation(0));
  note(conversation(1));
  // key-1/b moved to another conversation: key-1 falling out does not take it.
  held.noteId('key-1/b', 'key-2');
  for (let n = 2; n <= 1000; n += 1) note(conversation(n));
  // The four latest, the pinned one, and the id that moved.
  t.is(held.idCount(), 4 * 2 + 2 + 1);
  t.is(held.keyOfId('key-0/a'), 'key-0');
  t.is(held.keyOfId('key-1/a'), undefined);
  t.is(held.keyOfId('key-1/b'), 'key-2');
  t.is(held.keyOfId('key-5/a'), undefined);
  t.is(held.keyOfId('key-1000/b'), 'key-1000');
  release();
  held.drop('key-1000');
  t.is(held.keyOfId('key-1000/b'), undefined);
});

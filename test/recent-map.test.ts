// makeRecentMap (src/recent-map.ts): bounded by the entries used last,
// whatever the number of keys it has seen.
import test from 'ava';
import { makeRecentMap } from '../src/recent-map.js';

test('it keeps the entries used last, reading included, and tells what it lets go', t => {
  const evicted: string[] = [];
  const map = makeRecentMap<string, number>(3, key => evicted.push(key));
  map.set('a', 1);
  map.set('b', 2);
  map.set('c', 3);
  t.is(map.get('a'), 1);
  t.true(map.has('b'));
  map.set('d', 4);
  t.deepEqual(evicted, ['c']);
  t.is(map.get('c'), undefined);
  t.false(map.has('c'));
  map.set('a', 10);
  map.set('e', 5);
  t.deepEqual(evicted, ['c', 'b']);
  t.is(map.get('a'), 10);
  t.true(map.delete('d'));
  t.is(map.size(), 2);
  map.clear();
  t.is(map.size(), 0);
});

test('however many keys pass through, it holds no more than its limit', t => {
  let evicted = 0;
  const map = makeRecentMap<number, string>(64, () => {
    evicted += 1;
  });
  for (let i = 0; i < 100_000; i += 1) map.set(i, `value ${i}`);
  t.is(map.size(), 64);
  t.is(evicted, 100_000 - 64);
  t.is(map.get(100_000 - 1), `value ${100_000 - 1}`);
  t.is(map.get(0), undefined);
});

test('an entry whose value is undefined is still an entry', t => {
  const map = makeRecentMap<string, undefined>(2);
  map.set('none', undefined);
  t.true(map.has('none'));
  map.set('x', undefined);
  map.get('none');
  map.set('y', undefined);
  t.true(map.has('none'));
  t.false(map.has('x'));
});

// makeNumberSet (src/agent/turn/number-set.ts): membership is exact whatever
// the order numbers come in, and numbers that join up become one range.
import test from 'ava';
import { makeNumberSet } from '../src/agent/turn/number-set.js';

test('numbers in order make one range, and only they are members', t => {
  const set = makeNumberSet();
  for (let n = 0n; n < 1000n; n += 1n) set.add(n);
  t.is(set.ranges(), 1);
  t.true(set.has(0n));
  t.true(set.has(999n));
  t.false(set.has(1000n));
  t.false(set.has(-1n));
});

test('gaps stay out until filled, from either side, and then ranges merge', t => {
  const set = makeNumberSet();
  for (const n of [10n, 12n, 14n, 2n]) set.add(n);
  t.is(set.ranges(), 4);
  t.false(set.has(11n));
  t.false(set.has(13n));
  set.add(11n);
  t.is(set.ranges(), 3);
  t.true(set.has(11n));
  set.add(13n);
  t.is(set.ranges(), 2);
  t.deepEqual(
    [1n, 2n, 3n, 9n, 10n, 14n, 15n].map(n => set.has(n)),
    [false, true, false, false, true, true, false],
  );
  set.add(3n);
  set.add(9n);
  t.is(set.ranges(), 2);
  t.true(set.has(3n));
  t.true(set.has(9n));
});

test('adding a member again changes nothing', t => {
  const set = makeNumberSet();
  set.add(5n);
  set.add(7n);
  set.add(5n);
  set.add(7n);
  t.is(set.ranges(), 2);
  t.false(set.has(6n));
});

test('membership agrees with a plain Set over shuffled numbers', t => {
  const set = makeNumberSet();
  const plain = new Set<bigint>();
  // A fixed shuffle (a linear congruential walk), so a failure repeats.
  let seed = 7;
  for (let i = 0; i < 400; i += 1) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const n = BigInt(seed % 300);
    set.add(n);
    plain.add(n);
  }
  for (let n = -2n; n < 305n; n += 1n) t.is(set.has(n), plain.has(n), `number ${n}`);
});

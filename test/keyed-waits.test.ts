// makeKeyedWaits (src/keyed-waits.ts): one wait per key, settled, replaced
// by a newer one, or given up after its time.
import test from 'ava';
import { makeKeyedWaits } from '../src/keyed-waits.js';

test('a wait is settled with what arrives under its key, and tells what it waits for', async t => {
  const waits = makeKeyedWaits<number, string>(10_000);
  const waited = waits.wait('m1', 'the text');
  t.is(waits.detailOf('m1'), 'the text');
  t.false(waits.settle('m2', 2), 'nobody waits under another key');
  t.true(waits.settle('m1', 1));
  t.is(await waited, 1);
  t.is(waits.detailOf('m1'), undefined, 'a settled wait is gone');
});

test('a newer wait under the same key replaces the older, which gives up', async t => {
  const waits = makeKeyedWaits<number, string>(10_000);
  const older = waits.wait('m1', 'first');
  const newer = waits.wait('m1', 'second');
  t.is(await older, undefined);
  t.is(waits.detailOf('m1'), 'second');
  waits.settle('m1', 7);
  t.is(await newer, 7);
});

test('a wait nothing settles gives up after its time', async t => {
  const waits = makeKeyedWaits<number>(20);
  // Its timer keeps no process alive (it is unref'd): this one does, meanwhile.
  const alive = setTimeout(() => {}, 10_000);
  t.teardown(() => clearTimeout(alive));
  t.is(await waits.wait('m1', undefined), undefined);
  t.false(waits.settle('m1', 1), 'given up: nobody waits any more');
});

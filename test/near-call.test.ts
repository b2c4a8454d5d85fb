// callNear (src/daemon/near-call.ts): fae's own objects are called at
// once, anything else by E(); the answer is a promise either way.
import test from 'ava';
import { Far } from '@endo/far';
import { callNear } from '../src/daemon/near-call.js';

const counter = () => {
  const calls: unknown[][] = [];
  const object = Far('Counter', {
    add: (...args: unknown[]) => {
      calls.push(args);
      return calls.length;
    },
    fail: () => {
      throw Error('refused');
    },
  });
  return { object, calls };
};

test('an object of this vat is called at once, with its arguments', async t => {
  const { object, calls } = counter();
  const answer = callNear(object, 'add', [1, 'two']);
  // Already called: no turn went by.
  t.deepEqual(calls, [[1, 'two']]);
  t.is(await answer, 1);
});

test('a throw becomes the rejection of the promise', async t => {
  const { object } = counter();
  await t.throwsAsync(callNear(object, 'fail', []), { message: 'refused' });
});

test('a promise for an object, or a method it lacks, goes by E()', async t => {
  const { object, calls } = counter();
  const answer = callNear(Promise.resolve(object), 'add', [3]);
  t.deepEqual(calls, [], 'not called in this turn');
  t.is(await answer, 1);
  await t.throwsAsync(callNear(object, 'missing', []));
});

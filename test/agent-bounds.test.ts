// The tables fae keeps per message or per correspondent outside its
// conversations have bounds (issue 19): answers kept open to edits, and
// the events a follower has not read yet.
import test from 'ava';
import { E } from '@endo/far';
import { EDITABLE_LIMIT, makeEditableAnswers } from '../src/agent/turn/editable-answers.js';
import { FOLLOWER_QUEUE, makeFaeEvents } from '../src/agent/fae-events.js';

test('answers kept open to edits are bounded in all, the oldest leaving first (dismissed)', async t => {
  const dismissed: bigint[] = [];
  const editable = makeEditableAnswers({
    perThread: 2,
    keepMs: 3_600_000,
    dismiss: async number => {
      dismissed.push(number);
    },
  });
  // One thread per message: only the bound in all applies.
  const count = EDITABLE_LIMIT + 10;
  for (let i = 0; i < count; i += 1) editable.keep(BigInt(i), `thread-${i}`, Promise.resolve(undefined));
  t.false(editable.has(0n));
  t.false(editable.has(9n));
  t.true(editable.has(10n));
  t.true(editable.has(BigInt(count - 1)));
  t.deepEqual(dismissed, Array.from({ length: 10 }, (_, i) => BigInt(i)));
  editable.releaseAll();
});

test('a follower that does not read loses the oldest events, and is told how many', async t => {
  const events = makeFaeEvents();
  // `any`: a far iterator.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const follower = events.follow() as any;
  const extra = 5;
  for (let i = 0; i < FOLLOWER_QUEUE + extra; i += 1) events.emit({ type: 'answered', message: BigInt(i) });
  const first = await E(follower).next();
  t.deepEqual(first.value, { type: 'missed', count: extra });
  const next = await E(follower).next();
  t.deepEqual(next.value, { type: 'answered', message: BigInt(extra) });
  await E(follower).return();
  t.true((await E(follower).next()).done);
});

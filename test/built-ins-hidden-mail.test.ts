// The host's answers to fae's forms (a token, a decision) are hidden from
// the built-ins (sealed-powers.ts, HiddenMail): a hidden message is no
// one's (not listed, "no such message" by number or path), and a hidden
// value cannot be reached by any other path either. Judged by number and id, so the
// test hides an ordinary package and its attachment, on every dialect.
import test from 'ava';
import { E } from '@endo/far';
import { startGuestWithBuiltIns } from './support/built-ins.js';
import { formulaIdOf } from '../src/daemon/dialect.js';

test('a hidden message is not listed, not adopted from, and its value reached by no path', async t => {
  let hiddenId = '';
  const { host, call, special } = await startGuestWithBuiltIns(t, {
    prepare: async host => {
      await E(host).storeValue('sk-the-token-in-an-answer', 'answer');
    },
    hooks: {
      hidden: harden({ hidesMessage: (number: bigint) => number === 0n, hidesId: (id: string) => id === hiddenId }),
    },
  });
  const id = await E(host).identify('answer');
  hiddenId = formulaIdOf(id) ?? id;
  await E(host).send('fae', ['the answer ', ''], ['value'], ['answer']);
  await E(host).send('fae', ['an ordinary question'], [], []);

  const listed = JSON.stringify(await call('listMessages'), (_, v) => (typeof v === 'bigint' ? String(v) : v));
  t.false(listed.includes('the answer'));
  t.true(listed.includes('an ordinary question'));
  // A hidden message is no one's: as if it did not exist.
  const noMessage = /^there is no message #0 in your inbox/;
  await t.throwsAsync(call('adopt', { messageNumber: 0, edgeName: 'value', petName: 'mine' }), { message: noMessage });
  await t.throwsAsync(call('lookup', { petName: `${special.mail}/0/value` }), { message: noMessage });
  await t.throwsAsync(call('copy', { from: [special.mail, '0', 'value'], to: 'mine' }), { message: noMessage });
  // Its value, under any other name, is refused by id.
  await E(host).copy(['answer'], ['for-fae']);
  await E(host).send('fae', ['a copy ', ''], ['copy'], ['for-fae']);
  await t.throwsAsync(call('lookup', { petName: `${special.mail}/2/copy` }), {
    message: `"${special.mail}/2/copy" is the host's answer to fae's own form; no tool may read it`,
  });
  t.false(JSON.stringify(await call('list')).includes('mine'));
});

// The host's answers to fae's forms (a token, a decision) are hidden from
// the built-ins (sealed-powers.ts, HiddenMail): a hidden message is not
// listed and cannot be adopted from, and a hidden value cannot be reached
// by any path, the mail hub's included. Judged by number and id, so the
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
  await t.throwsAsync(call('adopt', { messageNumber: 0, edgeName: 'value', petName: 'mine' }), {
    message: "message #0 is the host's answer to fae's own form; no tool may adopt from it",
  });
  await t.throwsAsync(call('lookup', { petName: `${special.mail}/0/value` }), {
    message: `"${special.mail}/0/value" is the host's answer to fae's own form; no tool may read it`,
  });
  await t.throwsAsync(call('copy', { from: [special.mail, '0', 'value'], to: 'mine' }), {
    message: /the host's answer to fae's own form/,
  });
  t.false(JSON.stringify(await call('list')).includes('mine'));
});

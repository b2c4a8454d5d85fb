// The directory built-ins (has, move, copy, makeDirectory, identify) and
// the inspection built-ins (inspect, help) against a guest in the local
// daemon: what each does, and each way it refuses.
import test from 'ava';
import { E, Far } from '@endo/far';
import { startGuestWithBuiltIns } from './support/built-ins.js';
import { makeToolCaplet } from './support/tool-caplets.js';

test('has answers yes or no for names and paths, and refuses a malformed name', async t => {
  const { powers, call } = await startGuestWithBuiltIns(t);
  await E(powers).storeValue('hello', 'note');
  await E(powers).makeDirectory('box');
  await E(powers).storeValue(1, ['box', 'one']);
  t.is(await call('has', { petName: 'note' }), 'Yes, "note" exists.');
  t.is(await call('has', { petName: 'box/one' }), 'Yes, "box/one" exists.');
  t.is(await call('has', { petName: ['box', 'one'] }), 'Yes, "box/one" exists.');
  t.is(await call('has', { petName: 'nothing' }), 'No, "nothing" does not exist.');
  t.is(await call('has', { petName: 'box/two' }), 'No, "box/two" does not exist.');
  await t.throwsAsync(call('has', { petName: 42 }), {
    message: 'petName must be a pet name such as "notes" or a path such as "tools/greet", not 42',
  });
  await t.throwsAsync(call('has', {}), { message: `petName is required: a pet name such as "notes" or a path such as "tools/greet"` });
  await t.throwsAsync(call('has', { name: 'note' }), {
    message: 'unknown argument "name"; it accepts "petName"',
  });
});

test('move renames and moves into a directory; it refuses a taken name unless asked to replace', async t => {
  const { powers, call } = await startGuestWithBuiltIns(t);
  await E(powers).storeValue('a', 'first');
  await E(powers).storeValue('b', 'second');
  await E(powers).makeDirectory('archive');
  t.is(await call('move', { from: 'first', to: 'renamed' }), 'Moved "first" to "renamed".');
  t.is(await E(powers).lookup('renamed'), 'a');
  t.false(await E(powers).has('first'));
  t.is(await call('move', { from: 'renamed', to: 'archive/kept' }), 'Moved "renamed" to "archive/kept".');
  t.deepEqual(await E(powers).list('archive'), ['kept']);

  await E(powers).storeValue('c', 'third');
  await t.throwsAsync(call('move', { from: 'third', to: 'second' }), {
    message:
      'to: "second" already exists; choose an unused name (list shows them), or pass replace: true to replace what it holds',
  });
  t.is(await E(powers).lookup('second'), 'b');
  t.is(await E(powers).lookup('third'), 'c');
  t.is(await call('move', { from: 'third', to: 'second', replace: true }), 'Moved "third" to "second".');
  t.is(await E(powers).lookup('second'), 'c');

  await t.throwsAsync(call('move', { from: 'second', to: 'second' }), {
    message: 'from and to are both "second"; give a different name as to',
  });
  await t.throwsAsync(call('move', { from: 'second', to: 'x', replace: 'yes' }), {
    message: 'replace must be true or false, not "yes"',
  });
  await t.throwsAsync(call('move', { from: 'second' }), { message: `to is required: a pet name such as "notes" or a path such as "tools/greet"` });
  await t.throwsAsync(call('move', { from: 'missing', to: 'x' }), { message: /missing/ });
  t.true(await E(powers).has('second'));
});

test('copy gives a second name to the same thing, also from a message; it refuses a taken name', async t => {
  const { host, powers, special, call, inbox } = await startGuestWithBuiltIns(t);
  await E(powers).storeValue('v', 'orig');
  t.is(await call('copy', { from: 'orig', to: 'dup' }), 'Copied "orig" to "dup".');
  const [a, b] = await Promise.all([E(powers).identify('orig'), E(powers).identify('dup')]);
  t.is(a, b);

  await E(host).storeValue('shared thing', 'gift');
  await E(host).send('fae', ['Here is ', ''], ['present'], ['gift']);
  const [number] = await inbox();
  const fromMail = `${special.mail}/${number}/present`;
  t.is(await call('copy', { from: fromMail, to: 'kept' }), `Copied "${fromMail}" to "kept".`);
  t.is(await E(powers).lookup('kept'), 'shared thing');

  await t.throwsAsync(call('copy', { from: 'orig', to: 'kept' }), {
    message: /^to: "kept" already exists; choose an unused name/,
  });
  t.is(await E(powers).lookup('kept'), 'shared thing');
  t.is(await call('copy', { from: 'orig', to: 'kept', replace: true }), 'Copied "orig" to "kept".');
  t.is(await E(powers).lookup('kept'), 'v');
  await t.throwsAsync(call('copy', { from: '', to: 'x' }), { message: /^from must be a pet name/ });
});

test('makeDirectory makes an empty directory and never replaces one unless asked', async t => {
  const { powers, call } = await startGuestWithBuiltIns(t);
  t.is(await call('makeDirectory', { petName: 'notes' }), 'Made the empty directory "notes".');
  t.deepEqual(await E(powers).list('notes'), []);
  await E(powers).storeValue('keep me', ['notes', 'todo']);
  t.is(await call('makeDirectory', { petName: 'notes/inner' }), 'Made the empty directory "notes/inner".');
  t.deepEqual(await E(powers).list('notes'), ['inner', 'todo']);

  await t.throwsAsync(call('makeDirectory', { petName: 'notes' }), {
    message:
      'petName: "notes" already exists; choose an unused name (list shows them), or pass replace: true to replace what it holds',
  });
  t.deepEqual(await E(powers).list('notes'), ['inner', 'todo']);
  t.is(await call('makeDirectory', { petName: 'notes', replace: true }), 'Made the empty directory "notes".');
  t.deepEqual(await E(powers).list('notes'), []);
  await t.throwsAsync(call('makeDirectory', { petName: 'x', replace: 1 }), {
    message: 'replace must be true or false, not 1',
  });
  await t.throwsAsync(call('makeDirectory', { petName: 'x', force: true }), {
    message: 'unknown argument "force"; it accepts "petName", "replace"',
  });
  t.false(await E(powers).has('x'));
});

test('identify gives the id (and locator) of a name, equal for two names of one thing', async t => {
  const { powers, call } = await startGuestWithBuiltIns(t);
  await E(powers).storeValue('v', 'orig');
  await E(powers).copy(['orig'], ['alias']);
  const [id, locator] = await Promise.all([E(powers).identify('orig'), E(powers).locate('orig')]);
  const expected =
    locator === id ? `"orig" is "${id}".` : `"orig" is "${id}" (locator "${locator}").`;
  t.is(await call('identify', { petName: 'orig' }), expected);
  t.is(await call('identify', { petName: 'alias' }), expected.replace('"orig"', '"alias"'));
  await t.throwsAsync(call('identify', { petName: 'nobody' }), {
    message: 'petName: nothing is named "nobody"; list shows your names',
  });
  await t.throwsAsync(call('identify', { petName: null }), { message: `petName is required: a pet name such as "notes" or a path such as "tools/greet"` });
});

test('inspect shows a capability\'s help and methods, copes without help, and is bounded in time', async t => {
  const { powers, call } = await startGuestWithBuiltIns(t, {
    introduced: ['documented', 'bare', 'slow', 'mute'],
    hooks: { probeTimeoutMs: 50 },
    prepare: async (_host, daemon) => {
      await makeToolCaplet(daemon, 'documented', () =>
        Far('Counter', { help: () => 'Counts up.', increment: () => 1 }),
      );
      await makeToolCaplet(daemon, 'bare', () => Far('Bare', { open: () => 1, close: () => 0 }));
      await makeToolCaplet(daemon, 'slow', () =>
        Far('Slow', { help: () => new Promise(() => {}), poke: () => 1 }),
      );
      await makeToolCaplet(daemon, 'mute', () =>
        Far('Mute', { help: () => new Promise(() => {}), __getMethodNames__: () => new Promise(() => {}) }),
      );
    },
  });
  t.is(
    await call('inspect', { petName: 'documented' }),
    '"documented" says: Counts up.\nMethods of "documented": help, increment.',
  );
  t.is(await call('inspect', { petName: 'bare' }), 'Methods of "bare": close, open.');
  t.is(await call('inspect', { petName: 'slow' }), 'Methods of "slow": help, poke.');
  await t.throwsAsync(call('inspect', { petName: 'mute' }), {
    message:
      '"mute" did not describe itself: help() failed (help() did not answer within 50 ms) and __getMethodNames__() failed (__getMethodNames__() did not answer within 50 ms)',
  });
  await E(powers).storeValue({ a: 1 }, 'data');
  t.is(
    await call('inspect', { petName: 'data' }),
    '"data" holds plain data (copyRecord), not a capability; lookup shows it.',
  );
  await t.throwsAsync(call('inspect', { petName: 'absent' }), { message: /absent/ });
  await t.throwsAsync(call('inspect', {}), { message: `petName is required: a pet name such as "notes" or a path such as "tools/greet"` });
});

test('help gives the guest powers\' own documentation, whole or by method', async t => {
  const { powers, call } = await startGuestWithBuiltIns(t);
  const [overview, request] = await Promise.all([E(powers).help(), E(powers).help('request')]);
  t.is(await call('help'), overview);
  t.is(await call('help', { methodName: null }), overview);
  t.is(await call('help', { methodName: 'request' }), request);
  t.regex(String(await call('help', { methodName: 'request' })), /request/);
  await t.throwsAsync(call('help', { methodName: 7 }), {
    message: 'methodName must be a string, not 7',
  });
});

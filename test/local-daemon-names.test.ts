// The local daemon's names and directories against the February spec (§1,
// §4.2), whatever FAE_TEST_DIALECT says; May and August have their own in
// local-daemon-dialect-names.test.ts.
import test from 'ava';
import { E } from '@endo/far';
import { makeLocalDaemon } from './support/daemon.js';

// `any`: daemon objects are remote presences.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

const ID = /^[0-9a-f]{128}:[0-9a-f]{128}$/;

const setup = async () => {
  const daemon = makeLocalDaemon({ dialect: 'feb' });
  const host: Far = await daemon.host;
  const guest: Far = await E(host).provideGuest('fae', { agentName: 'profile-for-fae' });
  return { daemon, host, guest };
};

test('special names are listed first, sorted, then pet names sorted', async t => {
  const { daemon, host, guest } = await setup();
  t.deepEqual(await E(guest).list(), ['AGENT', 'HOST', 'MAIL', 'SELF']);
  await E(guest).storeValue('b', 'zeta');
  await E(guest).storeValue('a', '9lives');
  await E(guest).storeValue('c', 'alpha');
  t.deepEqual(await E(guest).list(), ['AGENT', 'HOST', 'MAIL', 'SELF', '9lives', 'alpha', 'zeta']);
  t.deepEqual(await E(host).list(), [
    'AGENT', 'APPS', 'ENDO', 'HOST', 'INFO', 'MAIL', 'MAIN', 'NETS', 'NONE', 'PINS', 'SELF',
    'fae', 'profile-for-fae',
  ]);
  await daemon.stop();
});

test('every name denotes a formula id of the form <128hex>:<128hex>', async t => {
  const { daemon, host, guest } = await setup();
  for (const name of ['AGENT', 'SELF', 'HOST', 'MAIL']) {
    t.regex(await E(guest).identify(name), ID, name);
  }
  await E(guest).storeValue(42n, 'answer');
  t.regex(await E(guest).identify('answer'), ID);
  t.is(await E(guest).identify('HOST'), await E(host).identify('SELF'));
  t.is(await E(host).identify('fae'), await E(guest).identify('SELF'));
  t.is(await E(host).identify('profile-for-fae'), await E(guest).identify('AGENT'));
  // All ids share the daemon's node number.
  const node = (await E(host).identify('SELF')).split(':')[1];
  t.is((await E(guest).identify('answer')).split(':')[1], node);
  t.regex(await E(guest).locate('SELF'), /^endo:\/\/[0-9a-f]{128}\/\?id=[0-9a-f]{128}&type=handle$/);
  await daemon.stop();
});

test('name syntax: pet, special and mail-slot names; others are invalid', async t => {
  const { daemon, guest } = await setup();
  await E(guest).storeValue(1, '0');
  await E(guest).storeValue(1, 'greet-tool');
  await E(guest).storeValue(1, 'a'.repeat(128));
  await t.throwsAsync(E(guest).storeValue(1, 'a'.repeat(129)), { message: /^Invalid name "a{129}"$/ });
  await t.throwsAsync(E(guest).storeValue(1, '17'.padStart(200, '1')), { message: /^Invalid pet name "1+7"$/ });
  for (const bad of ['tools.greet', 'Foo', 'has space', 'a_b', '@self', '-x', '']) {
    await t.throwsAsync(E(guest).has(bad), { message: `Invalid name ${JSON.stringify(bad)}` }, bad);
  }
  await t.throwsAsync(E(guest).has(), { message: 'Invalid name path' });
  await t.throwsAsync(E(guest).lookup([]), { message: 'Invalid name path' });
  await daemon.stop();
});

test('an uppercase name that is not special is rejected, not false', async t => {
  const { daemon, guest } = await setup();
  t.true(await E(guest).has('SELF'));
  t.false(await E(guest).has('nobody'));
  await t.throwsAsync(E(guest).has('FOO'), {
    message: 'Invalid pet name "FOO" and not one of AGENT, SELF, HOST, MAIL',
  });
  await t.throwsAsync(E(guest).identify('MAIN'), { message: /^Invalid pet name "MAIN"/ });
  await daemon.stop();
});

test('identify answers undefined for an unbound name; lookup throws', async t => {
  const { daemon, guest } = await setup();
  t.is(await E(guest).identify('missing'), undefined);
  await t.throwsAsync(E(guest).lookup('missing'), {
    instanceOf: TypeError,
    message: 'Unknown pet name: "missing"',
  });
  await t.throwsAsync(E(guest).lookup(['missing', 'x']), { message: 'Unknown pet name: "missing"' });
  await t.throwsAsync(E(guest).identify('missing', 'x'), { message: 'Unknown pet name: "missing"' });
  await daemon.stop();
});

test('create and delete operations need a pet name last', async t => {
  const { daemon, guest } = await setup();
  await t.throwsAsync(E(guest).remove('SELF'), { message: 'Invalid pet name "SELF"' });
  await t.throwsAsync(E(guest).storeValue(1, 'HOST'), { message: 'Invalid pet name "HOST"' });
  await t.throwsAsync(E(guest).makeDirectory('MAIL'), { message: 'Invalid pet name "MAIL"' });
  await t.throwsAsync(E(guest).move(['SELF'], ['me']), { message: 'Invalid pet name "SELF"' });
  await t.throwsAsync(E(guest).remove('missing'), {
    message: 'Formula does not exist for pet name "missing"',
  });
  // copy may read a special name, but must write a pet name.
  await E(guest).copy(['SELF'], ['me']);
  t.is(await E(guest).identify('me'), await E(guest).identify('SELF'));
  await t.throwsAsync(E(guest).copy(['me'], ['ME']), { message: 'Invalid pet name "ME"' });
  await t.throwsAsync(E(guest).copy(['nobody'], ['x']), { message: 'Unknown name: ["nobody"]' });
  await daemon.stop();
});

test('guards: rest-path methods take spread strings, move and copy two arrays', async t => {
  const { daemon, guest } = await setup();
  await E(guest).makeDirectory('tools');
  t.deepEqual(await E(guest).list('tools'), []);
  await t.throwsAsync(E(guest).list(['tools']), { message: /^In "list" method of \(EndoGuest\)/ });
  await t.throwsAsync(E(guest).has(['tools']), { message: /^In "has" method of \(EndoGuest\)/ });
  await t.throwsAsync(E(guest).remove(['tools']), { message: /^In "remove" method/ });
  await t.throwsAsync(E(guest).move('tools', 'kit'), { message: /^In "move" method/ });
  await t.throwsAsync(E(guest).copy('tools', ['kit']), { message: /^In "copy" method/ });
  await t.throwsAsync(E(guest).lookup(42), { message: /^In "lookup" method/ });
  await t.throwsAsync(E(guest).write('x', 'not-an-id'), {
    message: 'Invalid formula identifier "not-an-id" for pet name "x"',
  });
  await t.throwsAsync(E(guest).lookupById('bad'), { message: 'Invalid formula identifier "bad"' });
  await t.throwsAsync(E(guest).reverseIdentify('bad'), { message: 'Invalid formula identifier "bad"' });
  await daemon.stop();
});

test('nested directories: paths, move, copy and write', async t => {
  const { daemon, guest } = await setup();
  await E(guest).makeDirectory('tools');
  await E(guest).makeDirectory(['tools', 'inner']);
  await E(guest).storeValue('hello', ['tools', 'inner', 'greeting']);
  t.is(await E(guest).lookup(['tools', 'inner', 'greeting']), 'hello');
  t.deepEqual(await E(guest).list('tools', 'inner'), ['greeting']);
  t.true(await E(guest).has('tools', 'inner', 'greeting'));
  const id = await E(guest).identify('tools', 'inner', 'greeting');
  t.deepEqual(await E(guest).listIdentifiers('tools', 'inner'), [id]);

  await E(guest).move(['tools', 'inner', 'greeting'], ['tools', 'inner', 'salute']);
  t.deepEqual(await E(guest).list('tools', 'inner'), ['salute']);
  await E(guest).move(['tools', 'inner', 'salute'], ['top']);
  t.deepEqual(await E(guest).list('tools', 'inner'), []);
  t.is(await E(guest).identify('top'), id);
  await E(guest).copy(['top'], ['tools', 'copy']);
  await E(guest).write(['tools', 'again'], id);
  t.deepEqual(await E(guest).list('tools'), ['again', 'copy', 'inner']);
  t.deepEqual(await E(guest).reverseIdentify(id), ['top']);

  // A directory is a far object of its own, with the same operations.
  const tools: Far = await E(guest).lookup('tools');
  t.deepEqual(await E(tools).list(), ['again', 'copy', 'inner']);
  t.is(await E(tools).lookup('copy'), 'hello');
  await E(tools).remove('copy');
  t.false(await E(guest).has('tools', 'copy'));
  await t.throwsAsync(E(guest).storeValue(1, ['nowhere', 'x']), { message: 'Unknown pet name: "nowhere"' });
  await daemon.stop();
});

test('makeDirectory silently replaces an existing binding with an empty directory', async t => {
  const { daemon, guest } = await setup();
  await E(guest).makeDirectory('tools');
  await E(guest).storeValue('kept?', ['tools', 'greet']);
  const before = await E(guest).identify('tools');
  await E(guest).makeDirectory('tools');
  t.not(await E(guest).identify('tools'), before);
  t.deepEqual(await E(guest).list('tools'), []);
  // It replaces any binding, not only directories.
  await E(guest).storeValue('text', 'note');
  await E(guest).makeDirectory('note');
  t.deepEqual(await E(guest).list('note'), []);
  await daemon.stop();
});

test('write, copy, move and storeValue overwrite silently', async t => {
  const { daemon, guest } = await setup();
  await E(guest).storeValue('one', 'a');
  await E(guest).storeValue('two', 'b');
  await E(guest).storeValue('three', 'a');
  t.is(await E(guest).lookup('a'), 'three');
  await E(guest).copy(['b'], ['a']);
  t.is(await E(guest).lookup('a'), 'two');
  await E(guest).storeValue('four', 'c');
  await E(guest).move(['c'], ['a']);
  t.is(await E(guest).lookup('a'), 'four');
  t.false(await E(guest).has('c'));
  await E(guest).write('b', await E(guest).identify('SELF'));
  t.deepEqual(await E(guest).reverseIdentify(await E(guest).identify('SELF')), ['b', 'SELF']);
  await daemon.stop();
});

test('storeValue keeps a copy; lookup gives a fresh frozen copy each time', async t => {
  const { daemon, host, guest } = await setup();
  const value = harden({ list: [1, 2n, 'three', null, undefined, true], nested: { deep: ['x'] } });
  await E(guest).storeValue(value, 'data');
  const first = await E(guest).lookup('data');
  const second = await E(guest).lookup('data');
  t.deepEqual(first, value);
  t.true(Object.isFrozen(first));
  t.true(Object.isFrozen(first.nested.deep));
  t.not(first, second);
  await E(guest).storeValue(Error('boom'), 'failure');
  const error = await E(guest).lookup('failure');
  t.true(error instanceof Error);
  t.is(error.message, 'boom');
  // Remotables the daemon knows travel by id and come back as themselves.
  const tools: Far = await E(host).makeDirectory('tools');
  await E(host).storeValue(harden({ tools }), 'bundle');
  const bundle = await E(host).lookup('bundle');
  t.is(bundle.tools, tools);
  await daemon.stop();
});

test('storeValue of an unknown remotable fails and leaves the name bound', async t => {
  const { daemon, guest } = await setup();
  const { Far } = await import('@endo/far');
  const stranger = Far('Stranger', {});
  await t.throwsAsync(E(guest).storeValue(harden({ stranger }), 'odd'), {
    message: /^No corresponding formula for /,
  });
  t.true(await E(guest).has('odd'));
  await daemon.stop();
});

test('help documents the agent and its methods', async t => {
  const { daemon, host, guest } = await setup();
  t.regex(await E(guest).help(), /EndoGuest/);
  t.regex(await E(guest).help('lookup'), /^lookup/);
  t.regex(await E(host).help('provideGuest'), /provideGuest/);
  t.is(await E(guest).help('nope'), 'No documentation available for method "nope".');
  await daemon.stop();
});

test('lookupById gives any formula, lookup of specials gives agents and handles', async t => {
  const { daemon, host, guest } = await setup();
  const agentId = await E(guest).identify('AGENT');
  t.is(await E(guest).lookupById(agentId), guest);
  t.is(await E(guest).lookup('AGENT'), guest);
  t.is(await E(host).lookup('profile-for-fae'), guest);
  const handle = await E(guest).lookup('SELF');
  t.is(await E(host).lookup('fae'), handle);
  t.is(await E(guest).handle(), handle);
  t.deepEqual(await E(host).reverseLookup(guest), ['profile-for-fae']);
  await daemon.stop();
});

test('NONE is a least-authority object whose every method throws', async t => {
  const { daemon, host } = await setup();
  const none: Far = await E(host).lookup('NONE');
  await t.throwsAsync(E(none).list(), { message: 'not allowed' });
  await t.throwsAsync(E(none).send('HOST', ['x'], [], []), { message: 'not allowed' });
  await daemon.stop();
});

// followNameChanges and followLocatorNameChanges on agents and directories
// (spec §4.2; next spec §4): the current names first (specials, then pet
// names, each sorted), then live adds and removes.
import test from 'ava';
import { E } from '@endo/far';
import { dialect, follow, makeLocalDaemon, specialNames as N } from './support/daemon.js';

// `any`: daemon objects are remote presences.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

interface Change {
  readonly add?: string;
  readonly remove?: string;
  readonly value?: { readonly number: string; readonly node: string; readonly id?: string };
  readonly names?: readonly string[];
}

const setup = async () => {
  const daemon = makeLocalDaemon();
  const host: Far = await daemon.host;
  const guest: Far = await E(host).provideGuest('fae', { agentName: 'profile-for-fae' });
  return { daemon, host, guest };
};

const take = async (iterator: AsyncIterator<Change>, count: number) => {
  const items: Change[] = [];
  for (let i = 0; i < count; i += 1) {
    // Each pull must follow the previous one: that is the protocol.
    const { value, done } = await iterator.next();
    if (done) throw Error('The iterator ended');
    items.push(value);
  }
  return items;
};

const idOf = (change: Change) => `${change.value?.number}:${change.value?.node}`;

test('a guest follows its names: specials, then pet names, sorted, then changes', async t => {
  const { daemon, guest } = await setup();
  await E(guest).storeValue('z', 'zeta');
  await E(guest).storeValue('a', 'alpha');
  const changes = follow<Change>(E(guest).followNameChanges());
  const names: string[] = await E(guest).list();
  const current = await take(changes, names.length);
  t.deepEqual(current.map(change => change.add), names);
  t.deepEqual(names.slice(-2), ['alpha', 'zeta']);
  t.is(idOf(current[names.indexOf(N.self)]), await E(guest).identify(N.self));
  t.is(idOf(current.at(-2) as Change), await E(guest).identify('alpha'));
  // The value record is the parsed id: number and node, and the id itself after February.
  t.deepEqual(
    Object.keys(current.at(-2)?.value ?? {}).sort(),
    dialect === 'feb' ? ['node', 'number'] : ['id', 'node', 'number'],
  );

  await E(guest).storeValue('b', 'beta');
  const [added] = await take(changes, 1);
  t.is(added.add, 'beta');
  t.is(idOf(added), await E(guest).identify('beta'));

  // Replacing a binding: remove, then add with the new value.
  await E(guest).storeValue('c', 'alpha');
  const replaced = await take(changes, 2);
  t.deepEqual(replaced[0], { remove: 'alpha' });
  t.is(replaced[1].add, 'alpha');
  t.is(idOf(replaced[1]), await E(guest).identify('alpha'));

  // Rebinding a name to the formula it already names changes nothing;
  // the next event is the removal.
  await E(guest).copy(['alpha'], ['alpha']);
  await E(guest).remove('zeta');
  t.deepEqual(await take(changes, 1), [{ remove: 'zeta' }]);

  // A rename over an existing name: the overwritten name, the old name, the new one.
  await E(guest).move(['beta'], ['alpha']);
  const renamed = await take(changes, 3);
  t.deepEqual(renamed.slice(0, 2), [{ remove: 'alpha' }, { remove: 'beta' }]);
  t.is(renamed[2].add, 'alpha');
  await changes.return?.();
  await daemon.stop();
});

test('a host and a plain directory can be followed; a directory has no specials', async t => {
  const { daemon, host, guest } = await setup();
  const hostList: string[] = await E(host).list();
  const hostNames = await take(follow<Change>(E(host).followNameChanges()), hostList.length);
  t.deepEqual(hostNames.map(change => change.add), hostList);

  const tools: Far = await E(guest).makeDirectory('tools');
  await E(guest).storeValue(1, ['tools', 'one']);
  const changes = follow<Change>(E(tools).followNameChanges());
  const [first] = await take(changes, 1);
  t.is(first.add, 'one');
  await E(guest).storeValue(2, ['tools', 'two']);
  await E(guest).remove('tools', 'one');
  const later = await take(changes, 2);
  t.is(later[0].add, 'two');
  t.deepEqual(later[1], { remove: 'one' });
  await daemon.stop();
});

test('nothing is read before the first pull; changes before it show as current names', async t => {
  const { daemon, guest } = await setup();
  const ref = await E(guest).followNameChanges();
  await E(guest).storeValue(1, 'early');
  const changes = follow<Change>(ref);
  const current = await take(changes, (await E(guest).list()).length);
  t.is(current.at(-1)?.add, 'early');
  await daemon.stop();
});

test('followers die on restart, and the guard takes no arguments', async t => {
  const { daemon, guest } = await setup();
  const changes = follow<Change>(E(guest).followNameChanges());
  await take(changes, (await E(guest).list()).length);
  const pending = changes.next();
  await daemon.restart();
  await t.throwsAsync(pending, { message: 'Daemon restarted' });
  await t.throwsAsync(E(guest).followNameChanges('tools'), { message: /accepts at most 0 arguments/ });
  await daemon.stop();
});

test('followLocatorNameChanges: the names of one formula, then their changes', async t => {
  const { daemon, host, guest } = await setup();
  await E(guest).storeValue('v', 'first');
  await E(guest).copy(['first'], ['second']);
  const locator = await E(guest).locate('first');
  t.deepEqual(await E(guest).reverseLocate(locator), ['first', 'second']);
  const changes = follow<Change>(E(guest).followLocatorNameChanges(locator));
  t.deepEqual(await take(changes, 1), [{ add: locator, names: ['first', 'second'] }]);
  await E(guest).copy(['first'], ['third']);
  await E(guest).storeValue('other', 'unrelated');
  await E(guest).remove('second');
  t.deepEqual(await take(changes, 2), [
    { add: locator, names: ['third'] },
    { remove: locator, names: ['second'] },
  ]);
  // The root host is its own host; the daemon names it only as itself.
  const self = await E(host).locate(N.self);
  t.deepEqual(await take(follow<Change>(E(host).followLocatorNameChanges(self)), 1), [
    { add: self, names: [N.self] },
  ]);
  await t.throwsAsync(E(guest).followLocatorNameChanges('nowhere'), {
    message: 'Invalid locator "nowhere": Invalid URL.',
  });
  await daemon.stop();
});

// The May and August dialects of the local daemon: names, ids, locators
// and directory methods (next spec §1, §2, §4, §10).
import test from 'ava';
import { E } from '@endo/far';
import { makeLocalDaemon } from './support/daemon.js';

// `any`: daemon objects are remote presences.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

const ID64 = /^[0-9a-f]{64}:[0-9a-f]{64}$/;

const setup = async (dialect: 'may' | 'aug') => {
  const daemon = makeLocalDaemon({ dialect });
  const host: Far = await daemon.host;
  const guest: Far = await E(host).provideGuest('fae', { agentName: 'profile-for-fae' });
  return { daemon, host, guest };
};

test('may: specials per head, listed first and sorted; the old names are ordinary pet names', async t => {
  const { daemon, host, guest } = await setup('may');
  t.is(daemon.dialect, 'may');
  t.deepEqual(await E(guest).list(), ['@agent', '@host', '@mail', '@nets', '@self']);
  t.deepEqual(await E(host).list(), [
    '@agent', '@endo', '@host', '@info', '@mail', '@main', '@nets', '@node', '@none', '@pins', '@self',
    'fae', 'profile-for-fae',
  ]);
  t.false(await E(guest).has('SELF'));
  t.is(await E(guest).identify('SELF'), undefined);
  await E(guest).storeValue(1, 'A b.c');
  await E(guest).storeValue(2, '3');
  t.deepEqual((await E(guest).list()).slice(5), ['3', 'A b.c']);
  await t.throwsAsync(E(guest).has('@foo'), { message: 'Invalid pet name "@foo"' });
  await t.throwsAsync(E(guest).identify('@foo'), {
    message: 'Invalid pet name "@foo" and not one of @agent, @self, @host, @mail, @nets',
  });
  for (const bad of ['a/b', '.', '..', 'x@y', '']) {
    await t.throwsAsync(E(guest).has(bad), { message: `Invalid name ${JSON.stringify(bad)}` }, bad);
  }
  await t.throwsAsync(E(guest).storeValue(1, '@self'), { message: 'Invalid pet name "@self"' });
  await daemon.stop();
});

test('aug: @planes for guests; hosts drop @info and add @registry and @planes', async t => {
  const { daemon, host, guest } = await setup('aug');
  t.deepEqual(await E(guest).list(), ['@agent', '@host', '@mail', '@nets', '@planes', '@self']);
  t.deepEqual((await E(host).list()).slice(0, 12), [
    '@agent', '@endo', '@host', '@mail', '@main', '@nets', '@node', '@none', '@pins', '@planes',
    '@registry', '@self',
  ]);
  await t.throwsAsync(E(guest).identify('@foo'), {
    message: 'Invalid pet name "@foo" and not one of @agent, @self, @host, @mail, @nets, @planes',
  });
  await daemon.stop();
});

test('ids are 64 hex; locators in each head syntax; reverseIdentify refuses locators', async t => {
  for (const dialect of ['may', 'aug'] as const) {
    const { daemon, host, guest } = await setup(dialect);
    const self = await E(guest).identify('@self');
    t.regex(self, ID64);
    const [number, node] = self.split(':');
    const locator = await E(guest).locate('@self');
    t.is(
      locator,
      dialect === 'may' ? `endo://${node}/?id=${number}&type=handle` : `endo://${node}/${number}?type=handle`,
    );
    t.deepEqual(await E(host).reverseLocate(locator), ['fae']);
    await t.throwsAsync(E(host).reverseIdentify(locator), {
      message: `Invalid formula identifier ${JSON.stringify(locator)}`,
    });
    // Each head rejects the other's syntax.
    const other =
      dialect === 'may' ? `endo://${node}/${number}?type=handle` : `endo://${node}/?id=${number}&type=handle`;
    await t.throwsAsync(E(host).reverseLocate(other), {
      message: `Invalid locator ${JSON.stringify(other)}: ${dialect === 'may' ? 'Invalid search params.' : 'Missing formula number.'}`,
    });
    await daemon.stop();
  }
});

test('no write: storeIdentifier, storeLocator, maybeLookup and listLocators instead', async t => {
  const { daemon, guest } = await setup('may');
  await E(guest).storeValue('v', 'value');
  const id = await E(guest).identify('value');
  await E(guest).storeIdentifier('copy', id);
  t.is(await E(guest).lookup('copy'), 'v');
  // Only the id's shape is checked.
  const unknown = `${'a'.repeat(64)}:${'b'.repeat(64)}`;
  await E(guest).storeIdentifier('dangling', unknown);
  t.is(await E(guest).identify('dangling'), unknown);
  await t.throwsAsync(E(guest).storeIdentifier('bad', 'nope'), {
    message: 'Invalid formula identifier "nope" for pet name "bad"',
  });
  const locator = await E(guest).locate('value');
  await E(guest).storeLocator('by-locator', locator);
  t.is(await E(guest).identify('by-locator'), id);
  await t.throwsAsync(E(guest).storeLocator('x', id), {
    message: `storeLocator requires an endo:// locator, got ${JSON.stringify(id)}`,
  });
  t.is(await E(guest).maybeLookup('missing'), undefined);
  t.is(await E(guest).maybeLookup('value'), 'v');
  const locators = await E(guest).listLocators();
  t.is(locators.value, locator);
  t.is(locators['@self'], await E(guest).locate('@self'));
  await t.throwsAsync(E(guest).write('x', id), { message: /^target has no method "write", has \[/ });
  const methods: string[] = await E(guest).__getMethodNames__();
  t.false(methods.includes('write'));
  t.true(methods.includes('storeIdentifier'));
  t.false(methods.includes('editMessage'));
  const tools: Far = await E(guest).makeDirectory('tools');
  await E(tools).storeIdentifier('t', id);
  t.is(await E(guest).identify('tools', 't'), id);
  await daemon.stop();
});

test('provideGuest introduces @agent; makeUnconfined powers names and the @node worker', async t => {
  for (const dialect of ['may', 'aug'] as const) {
    const daemon = makeLocalDaemon({ dialect });
    const host: Far = await daemon.host;
    const guest: Far = await E(host).provideGuest('helper', {
      introducedNames: { '@agent': 'host-agent', AGENT: 'skipped' },
      agentName: 'helper-agent',
    });
    t.is(await E(guest).identify('host-agent'), await E(host).identify('@agent'));
    t.is(await E(guest).identify('skipped'), undefined);
    await t.throwsAsync(E(host).provideGuest('helper', { introducedNames: { '@agent': 'again' } }), {
      message: 'agent.storeIdentifier is not a function',
    });
    await t.throwsAsync(E(host).provideGuest('x', { introducedNames: { 'a/b': 'c' } }), {
      message: 'Invalid name "a/b"',
    });
    if (dialect === 'may') {
      t.is(await E(host).provideGuest('@agent'), host);
    } else {
      await t.throwsAsync(E(host).provideGuest('@agent'), { message: 'Invalid pet name "@agent"' });
    }
    // The caplet's powers: '@none' by default, '@agent' the host, an unbound name a new guest.
    const seen: unknown[] = [];
    const probe = async (powers: Promise<Far>) => {
      seen.push(await E(powers).__getMethodNames__().then(
        (names: string[]) => names.includes('provideGuest'),
        () => 'none',
      ));
      return 'ok';
    };
    await daemon.makeCaplet(probe, { powersName: '@agent' });
    await daemon.makeCaplet(probe, { powersName: 'NONE', resultName: 'p1' });
    t.deepEqual(seen, [true, false]);
    t.true(await E(host).has('NONE'));
    t.true((await E(host).list()).includes('NONE'));
    const before = await E(host).list();
    await daemon.makeCaplet(probe, { workerName: undefined as unknown as string });
    t.deepEqual(await E(host).list(), before);
    await daemon.stop();
  }
});

// The tool registry on its own, over the local daemon: a subscription to
// tools/ that fails or ends is made again, and until then discovery lists
// tools/ and says so in the log.
import test from 'ava';
import { E } from '@endo/far';
import { makePromiseKit } from '@endo/promise-kit';
import { makeLocalDaemon } from './support/daemon.js';
import { makeFollowReader } from '../src/daemon/follow-reader.js';
import { installTool, waitForLog } from './support/registry-tools.js';
import { makeToolRegistry } from '../src/toolbox/registry/tool-registry.js';
import type { NameChange } from '../src/toolbox/registry/tools-follower.js';
import { makeLogger } from '../src/logging/log.js';
import { makeEnvRedactor } from '../src/logging/redact.js';

// `any`: remote references.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

/**
 * A follower reader the test can break: `fail(error)` rejects the pending
 * read of the live subscription, `end()` finishes it; while `refuse` is
 * set, new subscriptions fail at once.
 */
const makeBreakableFollower = () => {
  const state = { refuse: false, opened: 0 };
  let breaker = makePromiseKit<IteratorResult<NameChange>>();
  const open = (ref: Promise<unknown>): AsyncIterator<NameChange> => {
    state.opened += 1;
    // Either reader shape, as the daemon under test hands it out.
    const inner = makeFollowReader<NameChange>(ref as Promise<object>);
    breaker = makePromiseKit<IteratorResult<NameChange>>();
    const mine = breaker;
    return {
      next: async () => {
        if (state.refuse) throw Error('the daemon is unreachable');
        return Promise.race([inner.next(), mine.promise]);
      },
      return: async (value?: unknown) => inner.return?.(value) ?? { done: true, value },
    };
  };
  return {
    state,
    open,
    fail: (error: Error) => breaker.reject(error),
    end: () => breaker.resolve(harden({ done: true, value: undefined })),
  };
};

const setup = async () => {
  const daemon = makeLocalDaemon();
  const host: Far = await daemon.host;
  const guest: Far = await E(host).provideGuest('fae', { agentName: 'profile-for-fae' });
  await E(guest).makeDirectory('tools');
  const logs: string[] = [];
  const logger = makeLogger({ redact: makeEnvRedactor({}), write: line => logs.push(line) });
  const follower = makeBreakableFollower();
  const registry = makeToolRegistry(guest, new Map(), {
    logger,
    openFollower: follower.open,
    retryMs: { first: 5, max: 20 },
  });
  return { daemon, host, guest, logs, follower, registry };
};

const names = async (registry: ReturnType<typeof makeToolRegistry>) =>
  (await registry.current()).schemas.map(schema => schema.function.name);

test('a failed subscription falls back to listing, logged, and is made again', async t => {
  const { daemon, host, logs, follower, registry } = await setup();
  await installTool(daemon, host, 'profile-for-fae', 'one');
  await registry.start();
  t.true(logs.some(line => line.includes('tools-following tools=1')));
  daemon.resetCallCounts();
  t.deepEqual(await names(registry), ['one']);
  t.is(daemon.callCounts().list ?? 0, 0);

  follower.state.refuse = true;
  follower.fail(Error('connection lost'));
  await waitForLog(logs, ['warning tools-follow-lost', 'connection lost']);
  // Changes while nobody follows: discovery lists, and says so once.
  await E(host).remove('profile-for-fae', 'tools', 'one');
  await installTool(daemon, host, 'profile-for-fae', 'two');
  daemon.resetCallCounts();
  t.deepEqual(await names(registry), ['two']);
  t.deepEqual(await names(registry), ['two']);
  t.is(daemon.callCounts().list, 2);
  t.is(logs.filter(line => line.includes('tools-listed')).length, 1);
  t.true(logs.some(line => line.includes('tools-listed reason="the tools/ subscription was lost"')));

  follower.state.refuse = false;
  await waitForLog(logs, ['tools-follow-restored', 'tools=1']);
  daemon.resetCallCounts();
  t.deepEqual(await names(registry), ['two']);
  t.is(daemon.callCounts().list ?? 0, 0);
  registry.stop();
  await daemon.stop();
});

test('a subscription that ends is made again and catches up', async t => {
  const { daemon, host, logs, follower, registry } = await setup();
  await registry.start();
  t.deepEqual(await names(registry), []);
  follower.end();
  await waitForLog(logs, ['tools-follow-lost', 'the tools/ follower ended']);
  await installTool(daemon, host, 'profile-for-fae', 'late');
  await waitForLog(logs, ['tools-follow-restored']);
  t.true(follower.state.opened >= 2);
  t.deepEqual(await names(registry), ['late']);
  registry.stop();
  await daemon.stop();
});

test('without followNameChanges the registry lists, retrying with a bounded pause', async t => {
  const daemon = makeLocalDaemon();
  const host: Far = await daemon.host;
  const guest: Far = await E(host).provideGuest('fae', { agentName: 'profile-for-fae' });
  await E(guest).makeDirectory('tools');
  await installTool(daemon, host, 'profile-for-fae', 'one');
  const logs: string[] = [];
  const logger = makeLogger({ redact: makeEnvRedactor({}), write: line => logs.push(line) });
  const registry = makeToolRegistry(guest, new Map(), {
    logger,
    openFollower: () => {
      throw Error('followNameChanges is not supported');
    },
    retryMs: { first: 5, max: 10 },
  });
  await registry.start();
  t.deepEqual(await names(registry), ['one']);
  await waitForLog(logs, ['retryInMs=10']);
  t.false(logs.some(line => line.includes('retryInMs=20')));
  registry.stop();
  await daemon.stop();
});

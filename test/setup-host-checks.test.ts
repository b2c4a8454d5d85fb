// What the setup scripts check before they touch the host, and the order in
// which setup-replace stops fae. The host here is the local daemon's, seen
// through a forwarding host that can hide names or claim other methods, as
// a daemon of another generation would present itself, and that records
// every call the script makes.
import test from 'ava';
import { E, Far } from '@endo/far';
import { setupWithTools } from '../setup-with-tools.js';
import { setupReplace } from '../setup-replace.js';
import { setup } from '../setup.js';
import { setupFsTools } from '../setup-fs-tools.js';
import { specialNames as namesOf } from '../src/daemon/dialect.js';
import { dialect, specialNames } from './support/daemon.js';
import { startDaemonWithLlm } from './support/daemon-with-llms.js';

// `any`: the daemon's objects are remote references.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

/** The calls that change a host. */
const CHANGES = ['provideGuest', 'makeUnconfined', 'copy', 'move', 'remove', 'cancel', 'write', 'storeIdentifier'];

interface ForwardingOptions {
  /** Top-level names list() leaves out, as if the host had no such name. */
  readonly hide?: readonly string[];
  /** Extra methods, so that the host looks like another generation. */
  readonly extra?: readonly string[];
  /** Methods left out, for the same reason. */
  readonly drop?: readonly string[];
}

/** A host that forwards every call to `host` and records it. */
const forwardingHost = async (host: Far, { hide = [], extra = [], drop = [] }: ForwardingOptions = {}) => {
  const calls: [string, ...unknown[]][] = [];
  const names = (await E(host).__getMethodNames__()) as (string | symbol)[];
  const methods: Record<string, (...args: unknown[]) => unknown> = {};
  for (const name of names) {
    if (typeof name !== 'string' || name.startsWith('__') || drop.includes(name)) continue;
    methods[name] = (...args: unknown[]) => {
      calls.push([name, ...args]);
      return E(host)[name](...args);
    };
  }
  methods.list = async (...path: unknown[]) => {
    calls.push(['list', ...path]);
    const listed = (await E(host).list(...path)) as string[];
    return path.length === 0 ? harden(listed.filter(name => !hide.includes(name))) : listed;
  };
  for (const name of extra) {
    methods[name] = () => {
      throw Error(`${name} is only a disguise`);
    };
  }
  const changes = () => calls.filter(([name]) => CHANGES.includes(name));
  return { host: Far('EndoHost', methods) as Far, calls, changes };
};

const start = (t: Parameters<typeof startDaemonWithLlm>[0]) => startDaemonWithLlm(t, 'openai');

test('a host without the pins directory gets nothing from setup-with-tools: no tool, no guest, no worker', async t => {
  const { llm, host } = await start(t);
  const { pins } = specialNames;
  const disguised = await forwardingHost(host, { hide: [pins] });
  const before = await E(host).list();
  await t.throwsAsync(setupWithTools(disguised.host, llm.env()), {
    message: new RegExp(`^This Endo daemon speaks the ${dialect} dialect but its host has no "${pins}" \\(it has \\[.*\\]\\); nothing was created$`),
  });
  t.deepEqual(disguised.changes(), []);
  t.deepEqual(await E(host).list(), before);
});

test('names of the wrong generation are found out before anything is made', async t => {
  const { llm, host } = await start(t);
  // The host claims the methods of another generation but has its own
  // names: what the old scripts met on the newer daemons, turned round.
  const claimed = dialect === 'feb' ? 'may' : 'feb';
  const disguised = await forwardingHost(
    host,
    dialect === 'feb' ? { extra: ['storeIdentifier'] } : { extra: ['write'], drop: ['storeIdentifier', 'editMessage'] },
  );
  const wanted = namesOf(claimed);
  const missing = [wanted.main, wanted.pins, wanted.none].map(name => `"${name}"`).join(', ');
  const before = await E(host).list();
  for (const script of [() => setup(disguised.host, llm.env()), () => setupFsTools(disguised.host, {}, '/')]) {
    await t.throwsAsync(script(), {
      message: new RegExp(
        `^This Endo daemon speaks the ${claimed} dialect but its host has no ${missing} \\(it has \\[.*"${specialNames.pins}".*\\]\\); nothing was created$`,
      ),
    });
  }
  t.deepEqual(disguised.changes(), []);
  t.deepEqual(await E(host).list(), before);
});

test('a script run without the host powers says how to run it, and changes nothing', async t => {
  await start(t);
  const none: Far = Far('EndoGuest', {
    ...Object.fromEntries(
      ['write', 'list', 'identify', 'has'].map(name => [
        name,
        () => {
          throw Error('not allowed');
        },
      ]),
    ),
  });
  await t.throwsAsync(setupFsTools(none, {}, '/'), {
    message:
      'Cannot read the names of the host (not allowed); run the script with the host\'s powers, as in "endo run --UNCONFINED dist/setup.js --powers AGENT"; nothing was created',
  });
});

test('all the checks go out together, before the first change', async t => {
  const { llm, host } = await start(t);
  const watched = await forwardingHost(host);
  await setupWithTools(watched.host, llm.env());
  const firstChange = watched.calls.findIndex(([name]) => CHANGES.includes(name));
  const reads = watched.calls.slice(0, firstChange).map(([name, ...args]) => [name, ...args]);
  const { pins } = specialNames;
  t.deepEqual(reads, [
    ['list'],
    ['identify', 'controller-for-fae'],
    ['identify', pins, 'controller-for-fae'],
  ]);
});

test('setup-replace unpins fae before it cancels it: a pinned fae that is cancelled is revived', async t => {
  const { llm, host } = await start(t);
  await setup(host, llm.env());
  const watched = await forwardingHost(host);
  await setupReplace(watched.host, llm.env({ LAL_MODEL: 'other' }));
  const { main, pins } = specialNames;
  const steps = watched.changes().map(([name, ...args]) => (name === 'makeUnconfined' ? [name, args[0]] : [name, ...args]));
  t.deepEqual(steps, [
    ['remove', pins, 'controller-for-fae'],
    ['cancel', 'controller-for-fae'],
    ['remove', 'controller-for-fae'],
    ['makeUnconfined', main],
    ['copy', ['controller-for-fae'], [pins, 'controller-for-fae']],
  ]);
});

test("fae's guest without its powers stops setup-with-tools before any tool is made", async t => {
  const { llm, host } = await start(t);
  await E(host).provideGuest('fae', { agentName: 'profile-for-fae' });
  await E(host).remove('profile-for-fae');
  const watched = await forwardingHost(host);
  await t.throwsAsync(setupWithTools(watched.host, llm.env()), {
    message:
      '"fae" exists but "profile-for-fae" does not, so its powers cannot be found; remove "fae" (or use a fresh daemon) and run this again',
  });
  t.deepEqual(watched.changes(), []);
  t.false(await E(host).has('greet-tool'));
});

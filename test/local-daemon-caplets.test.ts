// The local daemon's guests, caplets, cancellation, restart, collection,
// latency and counters against the February spec (§2, §3, §7), whatever
// FAE_TEST_DIALECT says; May and August: local-daemon-dialect-names.test.ts.
import test from 'ava';
import { E, Far } from '@endo/far';
import { capletUrl, makeLocalDaemon, nextMessage, type MessageRecord } from './support/daemon.js';

// `any`: daemon objects are remote presences.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

const echoUrl = capletUrl('daemon-echo-caplet');

test('provideGuest makes a guest; an existing name resolves to what it denotes', async t => {
  const daemon = makeLocalDaemon({ dialect: 'feb' });
  const host: Far = await daemon.host;
  await E(host).storeValue('a tool', 'greet-tool');
  const guest: Far = await E(host).provideGuest('fae', {
    introducedNames: { 'greet-tool': 'greet-tool', SELF: 'my-host', missing: 'skipped' },
    agentName: 'profile-for-fae',
  });
  t.deepEqual(await E(guest).list(), ['AGENT', 'HOST', 'MAIL', 'SELF', 'greet-tool', 'my-host']);
  t.is(await E(guest).lookup('greet-tool'), 'a tool');
  t.is(await E(guest).identify('my-host'), await E(guest).identify('HOST'));

  // Again: nothing new; the handle, not the powers.
  const again = await E(host).provideGuest('fae', { agentName: 'ignored' });
  t.is(again, await E(guest).lookup('SELF'));
  t.false(await E(host).has('ignored'));
  // Re-running with introduced names on an existing guest fails like upstream.
  await t.throwsAsync(
    E(host).provideGuest('fae', { introducedNames: { 'greet-tool': 'greet-tool' } }),
    { message: 'agent.write is not a function' },
  );
  // --powers AGENT: the host's own name for itself.
  t.is(await E(host).provideGuest('AGENT'), host);
  await t.throwsAsync(E(host).provideGuest('Fae'), { message: /^Invalid name "Fae"/ });
  await t.throwsAsync(E(host).provideGuest('x', { agentName: 'BAD' }), { message: 'Invalid pet name "BAD"' });
  await daemon.stop();
});

test('makeUnconfined imports the module and calls make(powersPromise, contextPresence, { env })', async t => {
  const daemon = makeLocalDaemon({ dialect: 'feb' });
  const host: Far = await daemon.host;
  await E(host).provideGuest('fae', { agentName: 'profile-for-fae' });
  const caplet: Far = await E(host).makeUnconfined('MAIN', echoUrl, {
    powersName: 'profile-for-fae',
    resultName: 'controller-for-fae',
    env: { LAL_HOST: 'http://127.0.0.1:1' },
  });
  t.deepEqual(await E(caplet).env(), { LAL_HOST: 'http://127.0.0.1:1' });
  t.true(await E(caplet).powersIsPromise());
  t.true(await E(caplet).contextIsPresence());
  t.is(await E(caplet).contextId(), await E(host).identify('controller-for-fae'));
  t.deepEqual(await E(caplet).list(), ['AGENT', 'HOST', 'MAIL', 'SELF']);
  t.is(await E(host).lookup('controller-for-fae'), caplet);

  await E(caplet).greetHost('hello from a caplet');
  const message = await nextMessage(host, m => m.type === 'package');
  t.deepEqual(message.strings, ['hello from a caplet']);
  t.deepEqual(await E(host).reverseIdentify(message.from), ['fae']);
  await daemon.stop();
});

test('a plain path works as the specifier, and env defaults to {}', async t => {
  const daemon = makeLocalDaemon({ dialect: 'feb' });
  const host: Far = await daemon.host;
  const { fileURLToPath } = await import('node:url');
  const caplet: Far = await E(host).makeUnconfined(undefined, fileURLToPath(echoUrl), { resultName: 'echo' });
  t.deepEqual(await E(caplet).env(), {});
  // NONE powers: every method throws.
  await t.throwsAsync(E(caplet).list(), { message: 'not allowed' });
  await daemon.stop();
});

test('env values must be strings; options with undefined values are absent', async t => {
  const daemon = makeLocalDaemon({ dialect: 'feb' });
  const host: Far = await daemon.host;
  await t.throwsAsync(
    E(host).makeUnconfined('MAIN', echoUrl, { resultName: 'x', env: { LAL_HOST: undefined } }),
    {
      message:
        'In "makeUnconfined" method of (EndoHost): arg 2?: env?: LAL_HOST: [1]: undefined (an undefined) - Must be a string',
    },
  );
  t.false(await E(host).has('x'));
  await t.throwsAsync(E(host).makeUnconfined('MAIN', echoUrl, { env: { N: 1 } }), { message: /Must be a string/ });
  const caplet: Far = await E(host).makeUnconfined('MAIN', echoUrl, {
    resultName: 'ok',
    powersName: undefined,
    env: undefined,
    extra: 'ignored',
  });
  t.deepEqual(await E(caplet).env(), {});
  await daemon.stop();
});

test('resultName is bound before make runs; a failed make leaves it bound', async t => {
  const daemon = makeLocalDaemon({ dialect: 'feb' });
  const host: Far = await daemon.host;
  await t.throwsAsync(
    E(host).makeUnconfined('MAIN', capletUrl('daemon-failing-caplet'), { resultName: 'broken' }),
    { message: 'make failed on purpose' },
  );
  t.regex(await E(host).identify('broken'), /^[0-9a-f]{128}:[0-9a-f]{128}$/);
  // A later lookup makes it again (and fails again).
  await t.throwsAsync(E(host).lookup('broken'), { message: 'make failed on purpose' });
  await t.throwsAsync(E(host).makeUnconfined('MAIN', capletUrl('no-such-module'), { resultName: 'gone' }), {
    message: /Cannot find module|ERR_MODULE_NOT_FOUND/,
  });
  t.true(await E(host).has('gone'));
  await daemon.stop();
});

test('an unbound worker or powers name creates a worker or a guest under that name', async t => {
  const daemon = makeLocalDaemon({ dialect: 'feb' });
  const host: Far = await daemon.host;
  const caplet: Far = await E(host).makeUnconfined('my-worker', echoUrl, {
    powersName: 'new-guest',
    resultName: 'echo',
  });
  t.true(await E(host).has('my-worker'));
  t.true(await E(host).has('new-guest'));
  t.deepEqual(await E(caplet).list(), ['AGENT', 'HOST', 'MAIL', 'SELF']);
  await t.throwsAsync(E(host).makeUnconfined('MAIN', echoUrl, { powersName: 'HOST' }), {
    message: 'Invalid pet name "HOST"',
  });
  await daemon.stop();
});

test('makeCaplet runs an in-process make through the same machinery', async t => {
  const daemon = makeLocalDaemon({ dialect: 'feb' });
  const host: Far = await daemon.host;
  await E(host).provideGuest('fae', { agentName: 'profile-for-fae' });
  const seen: { powersIsPromise?: boolean; env?: object } = {};
  const caplet: Far = await daemon.makeCaplet(
    async (powers, _context, { env }) => {
      seen.powersIsPromise = powers instanceof Promise;
      seen.env = env;
      await E(powers as Far).send('HOST', ['started'], [], []);
      return Far('Local', { ping: () => 'pong' });
    },
    { powersName: 'profile-for-fae', resultName: 'local', env: { A: 'b' } },
  );
  t.is(await E(caplet).ping(), 'pong');
  t.true(seen.powersIsPromise);
  t.deepEqual(seen.env, { A: 'b' });
  t.is(await E(host).lookup('local'), caplet);
  const started = await nextMessage(host);
  t.deepEqual(started.strings, ['started']);
  await daemon.stop();
});

test('a caplet result that is not passable makes the call fail', async t => {
  const daemon = makeLocalDaemon({ dialect: 'feb' });
  const host: Far = await daemon.host;
  await t.throwsAsync(
    daemon.makeCaplet(() => ({ notFar: () => 1 }), { resultName: 'bad' }),
    { message: /Cannot pass non-frozen|function|Remotables must be explicitly declared/ },
  );
  t.true(await E(host).has('bad'));
  await daemon.stop();
});

test('cancel rejects whenCancelled with the reason and resolves whenDisposed', async t => {
  const daemon = makeLocalDaemon({ dialect: 'feb' });
  const host: Far = await daemon.host;
  let context: Far;
  await daemon.makeCaplet(
    (_powers, ctx) => {
      context = ctx;
      return Far('Cancellable', {});
    },
    { resultName: 'job' },
  );
  const cancelled = E(context).whenCancelled();
  await E(host).cancel('job', Error('stop now'));
  await t.throwsAsync(cancelled, { instanceOf: Error, message: 'stop now' });
  t.is(await E(context).whenDisposed(), undefined);
  await t.throwsAsync(E(host).cancel('nobody'), { message: 'Unknown pet name: "nobody"' });
  await daemon.stop();
});

test('a caplet may cancel itself; its dependents are cancelled too', async t => {
  const daemon = makeLocalDaemon({ dialect: 'feb' });
  let first: Far;
  let second: Far;
  await daemon.makeCaplet((_p, ctx) => {
    first = ctx;
    return Far('First', {});
  }, { resultName: 'first' });
  await daemon.makeCaplet((_p, ctx) => {
    second = ctx;
    return Far('Second', {});
  }, { resultName: 'second', powersName: 'first' });
  const secondCancelled = E(second).whenCancelled();
  await E(first).cancel(Error('self'));
  await t.throwsAsync(E(first).whenCancelled(), { message: 'self' });
  await t.throwsAsync(secondCancelled, { message: 'self' });
  await daemon.stop();
});

test('losing the last name collects a caplet: its context is cancelled', async t => {
  const daemon = makeLocalDaemon({ dialect: 'feb' });
  const host: Far = await daemon.host;
  const contexts: Far[] = [];
  const make = (_powers: unknown, context: object) => {
    contexts.push(context);
    return Far('Tool', {});
  };
  await E(host).makeDirectory('tools');
  await daemon.makeCaplet(make, { resultName: ['tools', 'tool'] });
  await daemon.makeCaplet(make, { resultName: 'kept' });
  await E(host).copy(['kept'], ['tools', 'alias']);
  const [toolCancelled, keptCancelled] = contexts.map(c => E(c).whenCancelled());
  let keptAlive = true;
  keptCancelled.catch(() => {
    keptAlive = false;
  });
  // makeDirectory over the only directory naming the first caplet.
  await E(host).makeDirectory('tools');
  await t.throwsAsync(toolCancelled, { message: 'Collected formula' });
  await E(host).list();
  t.true(keptAlive);
  // Overwriting the result name collects the previous instance too.
  await daemon.makeCaplet(make, { resultName: 'kept' });
  await t.throwsAsync(keptCancelled, { message: 'Collected formula' });
  await daemon.stop();
});

test('collecting on demand: an unnamed caplet lives until collect() runs the pass', async t => {
  t.throws(() => makeLocalDaemon({ collection: 'sometimes' as never }), { message: /after-calls or on-demand/ });
  const daemon = makeLocalDaemon({ dialect: 'feb', collection: 'on-demand' });
  const host: Far = await daemon.host;
  let cancelled = false;
  await daemon.makeCaplet(
    (_powers: unknown, context: object) => {
      E(context as Far)
        .whenCancelled()
        .catch(() => {
          cancelled = true;
        });
      return Far('Tool', {});
    },
    { resultName: 'tool' },
  );
  await E(host).remove('tool');
  await E(host).list();
  await new Promise(resolve => setTimeout(resolve, 10));
  t.false(cancelled, 'no pass after the calls');
  daemon.collect();
  await new Promise(resolve => setTimeout(resolve, 10));
  t.true(cancelled, 'collected by the pass asked for');
  await daemon.stop();
});

test('undismissed mail keeps its attachments alive', async t => {
  const daemon = makeLocalDaemon({ dialect: 'feb' });
  const host: Far = await daemon.host;
  const guest: Far = await E(host).provideGuest('fae');
  let context: Far;
  await daemon.makeCaplet((_p, ctx) => {
    context = ctx;
    return Far('Gift', {});
  }, { resultName: 'gift' });
  await E(host).send('fae', ['take'], ['gift'], ['gift']);
  await E(host).remove('gift');
  let alive = true;
  const cancelled = E(context).whenCancelled();
  cancelled.catch(() => {
    alive = false;
  });
  await E(host).list();
  t.true(alive);
  // Both copies hold it: the guest's and the host's own.
  await E(guest).dismissAll();
  await E(host).list();
  t.true(alive);
  await E(host).dismissAll();
  await t.throwsAsync(cancelled, { message: 'Collected formula' });
  await daemon.stop();
});

test('restart keeps names and mail, cancels contexts, kills iterators, makes caplets again', async t => {
  const daemon = makeLocalDaemon({ dialect: 'feb' });
  const host: Far = await daemon.host;
  await E(host).provideGuest('fae', { agentName: 'profile-for-fae' });
  const first: Far = await E(host).makeUnconfined('MAIN', capletUrl('daemon-counting-caplet'), {
    powersName: 'profile-for-fae',
    resultName: 'counter',
  });
  t.is(await E(first).incarnation(), 1);
  const contexts: Far[] = [];
  await daemon.makeCaplet((powers, ctx) => {
    contexts.push(ctx);
    return Far('Watcher', { follow: () => E(powers as Far).followMessages() });
  }, { resultName: 'watcher', powersName: 'profile-for-fae' });
  const watcher: Far = await E(host).lookup('watcher');
  const iterator: Far = await E(watcher).follow();
  const pending = E(iterator).next();
  const cancelled = E(contexts[0]).whenCancelled();
  await E(host).send('fae', ['before restart'], [], []);
  await pending;

  await daemon.restart();
  await t.throwsAsync(cancelled, { message: 'Daemon restarted' });
  await t.throwsAsync(E(iterator).next());
  // make() ran again for both caplets: a new context, the count is 2.
  t.is(contexts.length, 2);
  const second: Far = await E(host).lookup('counter');
  t.not(second, first);
  t.is(await E(second).incarnation(), 2);
  const guest: Far = await E(host).lookup('profile-for-fae');
  const inbox = (await E(guest).listMessages()) as MessageRecord[];
  t.deepEqual(inbox.map(m => m.strings), [['before restart']]);
  // Records read back after a restart carry a replyTo key (spec §5.7).
  t.true('replyTo' in inbox[0]);
  t.is(inbox[0].replyTo, undefined);
  await daemon.stop();
});

test('latency delays calls and counters count them per method', async t => {
  const daemon = makeLocalDaemon({ dialect: 'feb', latencyMs: 5 });
  const host: Far = await daemon.host;
  daemon.resetCallCounts();
  await E(host).list();
  await E(host).list();
  await E(host).has('x');
  t.like(daemon.callCounts(), { list: 2, has: 1 });
  // Not a speed check: only that the configured delay was applied.
  const started = Date.now();
  daemon.setLatency(30);
  await E(host).list();
  t.true(Date.now() - started >= 20);
  t.is(daemon.callCounts().list, 3);
  daemon.resetCallCounts();
  t.deepEqual(daemon.callCounts(), {});
  t.throws(() => daemon.setLatency(-1), { message: /non-negative/ });
  await daemon.stop();
});

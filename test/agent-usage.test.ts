// What fae's model calls cost, per correspondent and per model (issue 23,
// part 4): requests, input tokens (cached ones among them), output tokens
// and a cost estimate from FAE_PRICES; logged per turn, totalled in
// status() (correspondents by the pet name fae has for them, never by id),
// stored in fae's directory so a restart keeps them, sealed from the
// model's tools, and kept in memory while the daemon refuses to store them.
import test from 'ava';
import { E } from '@endo/far';
import { startFaeInDaemon, type Far } from './support/fae-harness.js';
import { makeScriptedProvider, lastUserWords, type RecordedRequest, type ScriptedStep } from './support/scripted-provider.js';
import { fromSelf, messageText, nextMessage, specialNames } from './support/daemon.js';
import { faultyPowers, makeFaults } from './support/faulty-powers.js';
import { waitForLog } from './support/registry-tools.js';

/** Generous: the machine running the tests may be busy (no timing is asserted). */
const WAIT_MS = 30_000;
const BUSY_TIMEOUT_MS = 120_000;

/** What every model call reports: 1,000 tokens in, 800 of them from the cache, 50 out. */
const USAGE = harden({ inputTokens: 1000, cachedInputTokens: 800, outputTokens: 50 });
/** At input=3,cached=0.3,output=15 per million: 200 × 3 + 800 × 0.3 + 50 × 15 = 1,590 millionths of a dollar. */
const COST_PER_CALL = 0.00159;

/**
 * The model: "use a tool" makes one tool call first, "peek at usage" tries
 * to read fae's usage record; anything else is answered at once.
 */
const model = (request: RecordedRequest): ScriptedStep => {
  const last = request.messages.at(-1);
  if (last?.role === 'tool') return { text: `tool said: ${last.content}`, usage: USAGE };
  const words = lastUserWords(request.messages);
  if (words === 'use a tool') return { toolCalls: [{ name: 'list', arguments: {} }], usage: USAGE };
  if (words === 'peek at usage') return { toolCalls: [{ name: 'lookup', arguments: { petName: 'usage' } }], usage: USAGE };
  return { text: `re: ${words}`, usage: USAGE };
};

const scripted = () => {
  const llm = makeScriptedProvider();
  for (let i = 0; i < 100; i += 1) llm.push(model);
  return llm;
};

/** status() of whichever controller is fae's now (a restart makes a new one). */
const statusOf = async (host: Far) => E(E(host).lookup('controller-for-fae')).status();

/** Polls status() until `check` holds. */
const until = async (host: Far, check: (status: Far) => boolean) => {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const status = await statusOf(host);
    if (check(status)) return status;
    if (Date.now() > deadline) throw Error(`status() never got there: ${JSON.stringify(status.usage)}`);
    await new Promise(resolve => setTimeout(resolve, 50));
  }
};

test('per correspondent and model: totals in status(), the turn log, a cost from FAE_PRICES, and the record sealed from tools', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const { host, nextFromFae, daemon, logs } = await startFaeInDaemon({
    provider: scripted().provider,
    env: { FAE_PRICES: 'input=3,cached=0.3,output=15' },
  });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  await E(host).send('fae', ['hello'], [], []);
  t.is(messageText(await nextFromFae(WAIT_MS)), 're: hello');
  await E(host).send('fae', ['use a tool'], [], []);
  await nextFromFae(WAIT_MS);
  const line = await waitForLog(logs, ['turn-finished', 'iterations=2']);
  t.true(line.includes('iterations=2 requests=2 inputTokens=2000 cachedInputTokens=1600 outputTokens=100 costUsd=0.00318'), line);
  await E(host).send('fae', ['peek at usage'], [], []);
  t.true(messageText(await nextFromFae(WAIT_MS)).includes(`is fae's record of what its model calls cost; no tool may read or change it`));

  // alice, whom fae has no name for.
  const alice: Far = await E(host).provideGuest('alice', { introducedNames: { fae: 'fae' }, agentName: 'alice-agent' });
  await E(alice).send('fae', ['hi from alice'], [], []);
  t.is(messageText(await nextMessage(alice, fromSelf(alice), WAIT_MS)), 're: hi from alice');

  const { usage } = await until(host, status => status.usage.total.requests === 6);
  const each = (requests: number) => ({
    requests,
    inputTokens: requests * 1000,
    cachedInputTokens: requests * 800,
    cacheWriteInputTokens: 0,
    outputTokens: requests * 50,
    estimatedCostUsd: Math.round(requests * COST_PER_CALL * 1e6) / 1e6,
  });
  t.deepEqual(usage.total, each(6));
  t.deepEqual(usage.models, [{ model: 'scripted', ...each(6) }]);
  t.deepEqual(usage.correspondents[0], { name: specialNames.host, ...each(5) });
  t.regex(usage.correspondents[1].name, /^unnamed-[0-9a-f]{8}$/);
  t.deepEqual(usage.correspondents[1], { name: usage.correspondents[1].name, ...each(1) });
  const { estimatedCostUsd: _none, ...nothing } = each(0);
  t.deepEqual(usage.others, { correspondents: 0, ...nothing }, 'no estimate where nothing was priced');
  // No correspondent's id, in any form the daemon gives it.
  const aliceId: string = await E(host).identify('alice');
  t.false(JSON.stringify(await statusOf(host), (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)).includes(aliceId.slice(0, 16)));
});

test('the totals survive a restart, and what comes after adds to them', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({ provider: scripted().provider });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  await E(host).send('fae', ['one'], [], []);
  await nextFromFae(WAIT_MS);
  await E(host).send('fae', ['use a tool'], [], []);
  await nextFromFae(WAIT_MS);
  const before = await until(host, status => status.usage.total.requests === 3 && status.usage.storage === 'saved');
  t.is(before.usage.total.unpricedRequests, 3, 'the scripted model has no price');
  t.is(before.usage.total.estimatedCostUsd, undefined);

  await daemon.restart();
  const restored = await until(host, status => status.usage.storage === 'saved');
  t.deepEqual(restored.usage.total, before.usage.total);
  t.is(restored.usage.since, before.usage.since);
  await E(host).send('fae', ['after the restart'], [], []);
  t.is(messageText(await nextFromFae(WAIT_MS)), 're: after the restart');
  const after = await until(host, status => status.usage.total.requests === 4 && status.usage.storage === 'saved');
  t.deepEqual(after.usage.correspondents.map((c: { name: string; requests: number }) => [c.name, c.requests]), [[specialNames.host, 4]]);
});

test('a write the daemon refuses is tried again; the totals are counted in memory meanwhile, and stored once it answers', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const faults = makeFaults();
  faults.refuse('storeValue', ([, name]) => name === 'usage');
  const { host, nextFromFae, daemon, logs } = await startFaeInDaemon({
    provider: scripted().provider,
    wrapPowers: powers => faultyPowers(powers, faults),
  });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  await E(host).send('fae', ['one'], [], []);
  t.is(messageText(await nextFromFae(WAIT_MS)), 're: one', 'the answer did not wait for the store');
  await waitForLog(logs, ['usage-store-unavailable'], { timeoutMs: WAIT_MS });
  await E(host).send('fae', ['two'], [], []);
  await nextFromFae(WAIT_MS);
  const unsaved = await until(host, status => status.usage.total.requests === 2);
  t.is(unsaved.usage.storage, 'unsaved');
  t.is(logs.filter(line => line.includes('usage-store-unavailable')).length, 1, 'one warning, not one per try');

  faults.allow('storeValue');
  await until(host, status => status.usage.storage === 'saved');
  await waitForLog(logs, ['usage-store-available']);
  await daemon.restart();
  const restored = await until(host, status => status.usage.storage === 'saved');
  t.is(restored.usage.total.requests, 2);
});

test('a turn that fails after some model calls still counts what they spent', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'list', arguments: {} }], usage: USAGE },
    { error: 'the model went away' },
  ]);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({ provider: llm.provider });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  await E(host).send('fae', ['use a tool, then fail'], [], []);
  t.regex(messageText(await nextFromFae(WAIT_MS)), /the model went away/);
  const status = await until(host, current => current.usage.total.requests === 1);
  t.is(status.inputTokens, 1000);
  t.is(status.outputTokens, 50);
  t.deepEqual(status.usage.correspondents.map((entry: Far) => [entry.name, entry.requests]), [[specialNames.host, 1]]);
});

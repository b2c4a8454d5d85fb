// The answer goes out before the turn is stored (turn-closing.ts): a slow
// store must not keep the sender waiting; the message is dismissed only
// once the turn is stored, so that a restart in between replays a message
// fae finds stored rather than losing the turn from its conversation; a
// restart before the store replays a message that fae's own copy of the
// answer shows answered: the turn is kept from the two.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { E } from '@endo/far';
import { startFaeInDaemon } from './support/fae-harness.js';
import { makeScriptedProvider } from './support/scripted-provider.js';
import { messageText } from './support/daemon.js';
import { faultyPowers, makeFaults } from './support/faulty-powers.js';
import { waitForLog } from './support/registry-tools.js';
import { until } from './support/until.js';

const WAIT_MS = 30_000;
const BUSY_TIMEOUT_MS = 300_000;

/** The number of user messages in the request, as the answer. */
const countUsers = (request: { messages: readonly { role: string }[] }) => ({
  text: `users ${request.messages.filter(m => m.role === 'user').length}`,
});

/**
 * fae answers "remember this" while its conversation store is held: the
 * turn is answered, not stored, until `release()`.
 */
const answeredNotStored = async (t: ExecutionContext) => {
  t.timeout(BUSY_TIMEOUT_MS);
  const faults = makeFaults();
  const llm = makeScriptedProvider([{ text: 'first answer' }, countUsers, countUsers]);
  const started = await startFaeInDaemon({
    provider: llm.provider,
    // No answer kept open to its sender's edits (August): each message is dismissed once handled.
    env: { FAE_EDITABLE_TURNS: '0' },
    wrapPowers: powers => faultyPowers(powers, faults),
  });
  const { host, nextFromFae, daemon } = started;
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  const release = faults.hold('storeValue', ([, path]) => Array.isArray(path) && path[0] === 'conversations');
  await E(host).send('fae', ['remember this'], [], []);
  t.is(messageText(await nextFromFae(WAIT_MS)), 'first answer');
  return { ...started, llm, release };
};

test('a store that hangs does not hold back the answer, and the turn is stored once it goes on', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const faults = makeFaults();
  const llm = makeScriptedProvider([{ text: 'here is your answer' }]);
  const { host, fae, nextFromFae, daemon, logs } = await startFaeInDaemon({
    provider: llm.provider,
    wrapPowers: powers => faultyPowers(powers, faults),
  });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  const release = faults.hold('storeValue');
  await E(host).send('fae', ['a question'], [], []);
  t.is(messageText(await nextFromFae(WAIT_MS)), 'here is your answer');
  t.false(logs.some(line => line.includes('message-done')));
  release();
  await waitForLog(logs, ['message-done'], { timeoutMs: WAIT_MS });
  const stored: string[] = await E(fae).list('conversations');
  t.is(stored.length, 1);
  const nodes: string[] = await E(fae).list('conversations', stored[0]);
  t.deepEqual(nodes, ['n1']);
});

test('the message is dismissed once its turn is stored; a restart before that replays it, and nothing is lost', async t => {
  const { host, fae, nextFromFae, daemon, release } = await answeredNotStored(t);
  // Answered, not stored yet: still in fae's inbox.
  const waiting = async () => (await E(fae).listMessages()).some((m: { strings?: string[] }) => m.strings?.[0] === 'remember this');
  await new Promise(resolve => setTimeout(resolve, 200));
  t.true(await waiting(), 'not dismissed before its turn is stored');
  release();
  t.true(await until(async () => !(await waiting())), 'dismissed once stored');
  await daemon.restart();
  await E(host).send('fae', ['and now?'], [], []);
  t.is(messageText(await nextFromFae(WAIT_MS)), 'users 2', 'the turn was kept');
});

test('a restart between the answer and its store keeps the turn from fae\'s own copy of the answer, and does not answer again', async t => {
  const { host, nextFromFae, daemon, logs, llm, release } = await answeredNotStored(t);
  // The turn never reaches the store before the restart.
  await daemon.restart();
  release();
  await E(host).send('fae', ['and now?'], [], []);
  t.is(messageText(await nextFromFae(WAIT_MS)), 'users 2', 'the turn was kept from the answer fae gave');
  t.is(llm.requests.length, 2, 'the message was not answered again');
  t.true(logs.some(line => line.includes('answered-turn-kept')));
});

test('a forgotten conversation is not brought back by a restart that finds its answered messages still open to edits', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const llm = makeScriptedProvider([{ text: 'noted' }, countUsers]);
  // On August answered messages stay in the inbox, open to edits, for a while.
  const { host, nextFromFae, daemon } = await startFaeInDaemon({ provider: llm.provider });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  await E(host).send('fae', ['my secret is 42'], [], []);
  t.is(messageText(await nextFromFae(WAIT_MS)), 'noted');
  await E(host).send('fae', ['/forget'], [], []);
  t.regex(messageText(await nextFromFae(WAIT_MS)), /forgotten our conversation/);
  await daemon.restart();
  await E(host).send('fae', ['and now?'], [], []);
  t.is(messageText(await nextFromFae(WAIT_MS)), 'users 1', 'the conversation starts afresh');
});

test('a generation left empty by a crash (its directory made, its first turn not stored) stands for nothing: the answered turn is kept', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const faults = makeFaults();
  const llm = makeScriptedProvider([{ text: 'first answer' }, countUsers]);
  const { host, nextFromFae, daemon, logs } = await startFaeInDaemon({
    provider: llm.provider,
    env: { FAE_EDITABLE_TURNS: '0' },
    wrapPowers: powers => faultyPowers(powers, faults),
  });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  // The conversation's directory is made; its first turn is refused, and so is the dismissal, as
  // when the daemon restarts just then: the message comes again, with fae's answer beside it.
  faults.refuse('storeValue', ([, path]) => Array.isArray(path) && path[0] === 'conversations');
  faults.refuse('dismiss');
  await E(host).send('fae', ['remember this'], [], []);
  t.is(messageText(await nextFromFae(WAIT_MS)), 'first answer');
  await waitForLog(logs, ['conversations-store-unavailable'], { timeoutMs: WAIT_MS });
  await daemon.restart();
  faults.allow('storeValue');
  faults.allow('dismiss');
  await E(host).send('fae', ['and now?'], [], []);
  t.is(messageText(await nextFromFae(WAIT_MS)), 'users 2', 'the turn was kept from the answer fae gave');
  t.true(logs.some(line => line.includes('answered-turn-kept')));
});

// Chunks (src/conversations/store/store.ts, records.ts): a conversation's turns
// are kept a chunk per node, the latest chunk rewritten with each turn
// until it holds CHUNK_TURNS, so that reading a conversation back after a
// restart (or once it fell out of memory) takes one lookup per chunk, not
// one per turn; conversations stored one turn per node, as before chunks,
// are read back and go on; one fae wrote or read since it started is
// read back without listing its nodes.
import test from 'ava';
import { E } from '@endo/far';
import { startFaeInDaemon } from './support/fae-harness.js';
import { makeScriptedProvider, type RecordedRequest } from './support/scripted-provider.js';
import { fromSelf, messageText, nextMessage, specialNames } from './support/daemon.js';
import { faultyPowers, makeFaults } from './support/faulty-powers.js';
import { storedNodes, storedRecords, untilStored } from './support/stored-nodes.js';
import { CHUNK_TURNS } from '../src/conversations/store/store.js';

const WAIT_MS = 30_000;
const BUSY_TIMEOUT_MS = 300_000;

/** Answers with how many user messages the model was shown: the history fae read back. */
const countUsers = (request: RecordedRequest) => ({
  text: `users ${request.messages.filter(message => message.role === 'user').length}`,
});

/** fae with a model that counts, counting the lookups fae makes in its store. */
const startCounting = async (t: { teardown: (f: () => unknown) => void }) => {
  const llm = makeScriptedProvider(Array.from({ length: 40 }, () => countUsers));
  const faults = makeFaults();
  let storeLookups = 0;
  faults.refuse('lookup', ([path]) => {
    if (Array.isArray(path) && path[0] === 'conversations') storeLookups += 1;
    return false;
  });
  const started = await startFaeInDaemon({ provider: llm.provider, wrapPowers: powers => faultyPowers(powers, faults) });
  t.teardown(() => started.daemon.stop());
  await started.nextFromFae(WAIT_MS);
  /** Sends `text` from the host; fae's answer. */
  const ask = async (text: string) => {
    await E(started.host).send('fae', [text], [], []);
    return messageText(await started.nextFromFae(WAIT_MS));
  };
  return { ...started, ask, storeLookups: () => storeLookups };
};

test('turns go a chunk per node; a restart reads the conversation back with a lookup per chunk', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const fae = await startCounting(t);
  for (let i = 1; i <= 3; i += 1) t.is(await fae.ask(`message ${i}`), `users ${i}`);
  await untilStored(fae.fae, 3);
  const nodes = await storedNodes(fae.fae);
  t.deepEqual(nodes.map(node => node.name), ['n1']);
  // As text: CapTP copies a string whole (records.ts).
  t.is(typeof nodes[0].value, 'string');
  const chunk = nodes[0].node as { kind: string; turns: { seq: number }[] };
  t.is(chunk.kind, 'chunk');
  t.deepEqual(chunk.turns.map(turn => turn.seq), [1, 2, 3]);

  await fae.daemon.restart();
  const before = fae.storeLookups();
  t.is(await fae.ask('after the restart'), 'users 4', 'all three turns were read back');
  t.is(fae.storeLookups() - before, 1, 'one lookup for the three turns');
  await untilStored(fae.fae, 4);
  t.deepEqual((await storedNodes(fae.fae)).map(node => node.name), ['n1'], 'the fourth turn joined the chunk');
});

test(`a full chunk (${CHUNK_TURNS} turns) is left as it is; the next turn starts another`, async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const fae = await startCounting(t);
  for (let i = 1; i <= CHUNK_TURNS + 2; i += 1) t.is(await fae.ask(`message ${i}`), `users ${i}`);
  const records = await untilStored(fae.fae, CHUNK_TURNS + 2);
  t.deepEqual(records.map(record => record.seq), Array.from({ length: CHUNK_TURNS + 2 }, (_, i) => i + 1));
  t.deepEqual((await storedNodes(fae.fae)).map(node => node.name).sort(), ['n1', `n${CHUNK_TURNS + 1}`].sort());

  await fae.daemon.restart();
  const before = fae.storeLookups();
  t.is(await fae.ask('after the restart'), `users ${CHUNK_TURNS + 3}`);
  t.is(fae.storeLookups() - before, 2, 'a lookup per chunk');
});

test('a conversation stored one turn per node, as before chunks and before text, is read back whole and goes on', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const fae = await startCounting(t);
  for (let i = 1; i <= 3; i += 1) await fae.ask(`message ${i}`);
  await untilStored(fae.fae, 3);
  const [node] = await storedNodes(fae.fae);
  const records = (await storedRecords(fae.fae)).map(({ record }) =>
    harden({ v: 1, kind: 'turn', correspondent: (node.node as { correspondent: string }).correspondent, thread: 'main', ...record }),
  );
  // The same turns, laid out as fae stored them before: a node each, each a record rather than its text.
  await E(fae.fae).remove('conversations', node.key, 'n1');
  await Promise.all(records.map((record, i) => E(fae.fae).storeValue(record, ['conversations', node.key, `n${i + 1}`])));
  await fae.daemon.restart();
  t.is(await fae.ask('after the restart'), 'users 4');
  const stored = await untilStored(fae.fae, 4);
  t.deepEqual(stored.map(record => record.seq), [1, 2, 3, 4]);
  t.true(JSON.stringify(stored.at(-1)?.record).includes(`from ${specialNames.host}: after the restart`));
});

test('a conversation fallen out of memory is read back without listing its nodes, which fae knows', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const llm = makeScriptedProvider(Array.from({ length: 10 }, () => countUsers));
  const faults = makeFaults();
  const storeCalls: string[] = [];
  const count = (method: string) => (args: readonly unknown[]) => {
    const [first] = args;
    const path = Array.isArray(first) ? first : args;
    if (path[0] === 'conversations' && path.length > 1) storeCalls.push(method);
    return false;
  };
  faults.refuse('list', count('list'));
  faults.refuse('lookup', count('lookup'));
  const started = await startFaeInDaemon({
    provider: llm.provider,
    env: { FAE_HELD_CONVERSATIONS: '1' },
    wrapPowers: powers => faultyPowers(powers, faults),
  });
  t.teardown(() => started.daemon.stop());
  await started.nextFromFae(WAIT_MS);
  const alice = await E(started.host).provideGuest('alice', { introducedNames: { fae: 'fae' }, agentName: 'alice-agent' });
  const hostAsks = async (text: string) => {
    await E(started.host).send('fae', [text], [], []);
    return messageText(await started.nextFromFae(WAIT_MS));
  };
  t.is(await hostAsks('one'), 'users 1');
  t.is(await hostAsks('two'), 'users 2');
  await untilStored(started.fae, 2);
  // alice's conversation pushes the host's out of memory (one is held besides those in use).
  for (const text of ['alice one', 'alice two']) {
    await E(alice).send('fae', [text], [], []);
    await nextMessage(alice, async m => (await fromSelf(alice)(m)) && messageText(m) !== '', WAIT_MS);
  }
  storeCalls.length = 0;
  t.is(await hostAsks('three'), 'users 3', 'read back whole');
  t.deepEqual(storeCalls, ['lookup'], 'one lookup, no listing');
});

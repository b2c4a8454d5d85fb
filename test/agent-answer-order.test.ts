// The answer goes out before the turn is stored (fae.ts): a slow store
// must not keep the sender waiting, and the message is dismissed only once
// the answer is out.
import test from 'ava';
import { E } from '@endo/far';
import { startFaeInDaemon } from './support/fae-harness.js';
import { makeScriptedProvider } from './support/scripted-provider.js';
import { messageText } from './support/daemon.js';
import { faultyPowers, makeFaults } from './support/faulty-powers.js';
import { waitForLog } from './support/registry-tools.js';

const WAIT_MS = 30_000;
const BUSY_TIMEOUT_MS = 300_000;

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

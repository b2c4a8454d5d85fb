// fae lets go of its answer's copy by two paths (once it is no longer open
// to edits, and once its conversation is stored); the daemon is asked to
// dismiss it once, so the log carries no refusal of a second dismissal.
import test from 'ava';
import { E } from '@endo/far';
import { startReadyFae } from './support/fae-harness.js';
import { echoReply, makeScriptedProvider } from './support/scripted-provider.js';
import { messageText } from './support/daemon.js';

test('every message is dismissed once, however many paths let it go', async t => {
  const llm = makeScriptedProvider(Array.from({ length: 6 }, () => echoReply));
  // One answer open to edits per thread: each new answer lets the one before go.
  const { host, nextFromFae, logs, daemon } = await startReadyFae(t, { provider: llm.provider, env: { FAE_EDITABLE_TURNS: '1' } });
  await E(host).send('fae', ['one'], [], []);
  let last = await nextFromFae();
  for (const text of ['two', 'three', 'four']) {
    // In the same thread: each question answers fae's last answer.
    await E(host).reply(last.number, [text], [], []);
    last = await nextFromFae();
    t.true(messageText(last).includes(text));
  }
  // Let the background stores and dismissals finish.
  await new Promise(resolve => setTimeout(resolve, 500));
  t.deepEqual(logs.filter(line => line.includes('dismiss-failed')), []);
  t.truthy(daemon.callCounts().dismiss);
});

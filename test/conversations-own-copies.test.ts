// fae's own copies of what it sends (conversations.ts): a copy that
// teaches nothing (no reply) is dismissed at once; a reply's copy, which
// links fae's message to its thread, is dismissed once that link is stored,
// with its conversation's next record or, when none comes soon, on its own
// (conversations-link-writes.test.ts). So fae's inbox does not grow with
// every answer, and threads still hold after a restart.
import test from 'ava';
import { E } from '@endo/far';
import { startFaeInDaemon } from './support/fae-harness.js';
import type { Far } from './support/fae-harness.js';
import { echoReply, makeScriptedProvider } from './support/scripted-provider.js';
import { fromSelf, messageText } from './support/daemon.js';
import type { MessageRecord } from './support/daemon.js';
import { waitForLog } from './support/registry-tools.js';
import { until } from './support/until.js';

const WAIT_MS = 30_000;
const BUSY_TIMEOUT_MS = 300_000;

/** The numbers of the copies of fae's own messages still in its inbox. */
const ownCopies = async (fae: Far) => {
  const notOwn = fromSelf(fae);
  const records: MessageRecord[] = await E(fae).listMessages();
  const own = await Promise.all(records.map(async record => !(await notOwn(record))));
  return records.filter((_, i) => own[i]).map(record => record.number);
};

/**
 * On August fae keeps its latest answers (and their questions) open to
 * edits for a while (agent-edits.test.ts); these tests are about what
 * happens to own copies once nothing needs them, so nothing is kept.
 */
const NOT_EDITABLE = harden({ FAE_EDITABLE_TURNS: '0' });

test('own copies are dismissed once what they teach is stored, and a reply to one still finds its thread after a restart', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const llm = makeScriptedProvider();
  for (let i = 0; i < 4; i += 1) llm.push(echoReply);
  const { host, fae, nextFromFae, daemon, logs } = await startFaeInDaemon({ provider: llm.provider, env: NOT_EDITABLE });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);

  await E(host).send('fae', ['alpha: remember the colour teal'], [], []);
  const answerAlpha = await nextFromFae(WAIT_MS);
  await waitForLog(logs, ['message-done'], { timeoutMs: WAIT_MS });
  // The ready announcement answered nothing: its copy went at once. The
  // copy of the answer to alpha goes once its link is stored: no next
  // turn comes, so on its own.
  t.true(await until(async () => (await ownCopies(fae)).length === 0, WAIT_MS));

  await E(host).send('fae', ['beta: and the number 7'], [], []);
  const answerBeta = await nextFromFae(WAIT_MS);
  t.true(await until(async () => (await ownCopies(fae)).length === 0, WAIT_MS));

  await daemon.restart();
  await E(host).reply(answerAlpha.number, ['gamma: what colour was it?'], [], []);
  t.is(messageText(await nextFromFae(WAIT_MS)), 're: gamma: what colour was it?');
  const request = JSON.stringify(llm.requests.at(-1)?.messages);
  t.true(request.includes('teal'));
  t.true(request.includes('the number 7'));
  await E(host).reply(answerBeta.number, ['delta: and the number?'], [], []);
  t.is(messageText(await nextFromFae(WAIT_MS)), 're: delta: and the number?');
  t.true(JSON.stringify(llm.requests.at(-1)?.messages).includes('the number 7'));
});

test('the copy of an answer whose conversation is forgotten is dismissed at once: nothing is left to link it to', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'forgetConversation', arguments: {} }] },
    { text: 'Forgotten.' },
  ]);
  const { host, fae, nextFromFae, daemon, logs } = await startFaeInDaemon({ provider: llm.provider, env: NOT_EDITABLE });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  await E(host).send('fae', ['please forget what I said'], [], []);
  t.is(messageText(await nextFromFae(WAIT_MS)), 'Forgotten.');
  await waitForLog(logs, ['own-copy-unplaced'], { timeoutMs: WAIT_MS });
  const deadline = Date.now() + WAIT_MS;
  let left = await ownCopies(fae);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise(resolve => setTimeout(resolve, 5));
    left = await ownCopies(fae);
  }
  t.deepEqual(left, []);
});

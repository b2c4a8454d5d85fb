// A stalled model is seen early (issue 16): the built caplet, streaming
// from a real OpenAI-compatible loopback server through the official SDK,
// shows the text as it comes in its progress reply, says it is still
// waiting when the stream goes quiet, and after LAL_STALL_MS of silence
// closes the request and tells the host, well within LAL_TIMEOUT_MS.
import test from 'ava';
import { E } from '@endo/far';
import { makePromiseKit } from '@endo/promise-kit';
import { dialect, makeLocalDaemon, messageText, specialNames, type MessageRecord } from './support/daemon.js';
import { startLlmServer } from './support/llm-server.js';
import type { Far } from './support/fae-harness.js';
import { until } from './support/until.js';

const agentUrl = new URL('../agent.js', import.meta.url).href;
const READY = 'Fae agent ready.';
const canEdit = dialect === 'aug';
/** A generous bound: the machine may be busy (nothing here is timed). */
const WAIT_MS = 60_000;


test('a model that stops streaming is given up on after LAL_STALL_MS, the progress reply showing what came and the wait', async t => {
  t.timeout(180_000);
  const server = await startLlmServer('openai');
  t.teardown(() => server.close());
  // Half the answer, then silence for good.
  server.reply({ text: 'The answer begins well and then goes nowhere at all', midway: makePromiseKit<void>().promise });
  const daemon = makeLocalDaemon();
  t.teardown(() => daemon.stop());
  const host: Far = await daemon.host;
  await E(host).provideGuest('fae', { introducedNames: {}, agentName: 'profile-for-fae' });
  const { LAL_HOST } = server.env();
  await E(host).makeUnconfined(specialNames.main, agentUrl, {
    powersName: 'profile-for-fae',
    resultName: 'controller-for-fae',
    env: { LAL_HOST, LAL_MODEL: 'test-model', LAL_STALL_MS: '3000', LAL_TIMEOUT_MS: '600000', FAE_PROGRESS_AFTER_MS: '100' },
  });
  const faeId: string = await E(host).identify('fae');
  const fromFae = async () =>
    ((await E(host).listMessages()) as MessageRecord[]).filter(
      m => m.from.includes(faeId.split(':')[0]) && !messageText(m).startsWith(READY),
    );
  const shown = async () => (await fromFae()).map(messageText);
  await E(host).send('fae', ['tell me something'], [], []);
  if (canEdit) {
    // The streamed half, then the wait, in the one progress reply.
    t.true(await until(async () => (await shown()).some(text => text.includes('The answer begins')), WAIT_MS));
    t.true(await until(async () => (await shown()).some(text => text.includes('still waiting for the model')), WAIT_MS));
  }
  await server.whenAbandoned(1);
  // Given up as a stall: the host is told so.
  t.true(await until(async () => (await shown()).some(text => /went 3 s without a word in the middle of its answer/.test(text)), WAIT_MS));
  const mine = await shown();
  t.is(mine.length, canEdit ? 1 : 2, JSON.stringify(mine));
});

// Two agents that answer each other would trade answers for ever, a model
// call each (seen in the Endo Chat UI with two faes, each mailed the
// other). A correspondent past FAE_TURNS_PER_MINUTE model turns within a
// minute is told once that fae pauses, gets no model answer for
// FAE_PAUSE_MS, and the host hears of it once; the host is never paused.
import test from 'ava';
import { E } from '@endo/far';
import { startReadyFae } from './support/fae-harness.js';
import { echoReply, makeScriptedProvider } from './support/scripted-provider.js';
import { makeCorrespondent } from './support/correspondent.js';
import { messageText } from './support/daemon.js';
import { waitForLog } from './support/registry-tools.js';

const PAUSED = /^You are writing to me faster than I can answer, so I am pausing our conversation for 10 minutes/;

test('an agent answering every answer is paused after FAE_TURNS_PER_MINUTE turns, and the exchange ends', async t => {
  const llm = makeScriptedProvider(Array.from({ length: 40 }, () => echoReply));
  const { host, nextFromFae, logs } = await startReadyFae(t, { provider: llm.provider, env: { FAE_TURNS_PER_MINUTE: '3' } });
  const bot = await makeCorrespondent(host, 'bot');
  // The bot answers everything fae says, at once, as another agent would.
  await bot.say('hello, agent');
  const heard: string[] = [];
  for (let i = 0; i < 4; i += 1) {
    heard.push(await bot.next());
    await bot.say(`and again ${i}`);
  }
  t.is(heard.slice(0, 3).length, 3);
  t.regex(heard[3], PAUSED);
  await waitForLog(logs, ['pace-quiet']);
  // Three model turns, and none for what came after the pause.
  t.is(llm.requests.length, 3);
  const report = messageText(await nextFromFae());
  t.regex(report, /^Mail from an unnamed sender \(unnamed-[0-9a-f]{8}\) came faster than a person writes \(3 messages within a minute\)/);
  // The host is never paused.
  for (const text of ['one', 'two', 'three', 'four']) {
    await E(host).send('fae', [text], [], []);
    t.true(messageText(await nextFromFae()).includes(text));
  }
  await t.throwsAsync(bot.next(1_000), { message: /No matching message/ }, 'the bot hears nothing more');
});

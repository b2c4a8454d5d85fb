// fae learns the ids of its answers from its own copies in its inbox and
// stores each with a turn of its conversation (own-copy-links.ts). Where
// answers stay open to edits (August), their copies stay in the inbox, so
// a restart reads them again: each is linked already, and must not be
// linked again with the next turn (seen on the real August daemon, where
// the first turn after a restart carried the ids of the answers before it).
import test from 'ava';
import { startReadyFae } from './support/fae-harness.js';
import { echoReply, makeScriptedProvider } from './support/scripted-provider.js';
import { untilStored } from './support/stored-nodes.js';
import { until } from './support/until.js';

test('a restart links no answer twice: each id is stored with its own turn only', async t => {
  const { provider } = makeScriptedProvider(Array.from({ length: 6 }, () => echoReply));
  const { fae, ask, daemon, logs } = await startReadyFae(t, { provider });
  t.is(await ask('one'), 're: one');
  t.is(await ask('two'), 're: two');
  await untilStored(fae, 2);
  // Both turns done (stored and their messages let go) before the restart.
  t.true(await until(async () => logs.filter(line => line.includes('message-done')).length >= 2));
  await daemon.restart();
  t.is(await ask('three'), 're: three');
  const records = await untilStored(fae, 3);
  // The third turn's record may be written again once its own copy comes: read what settles.
  await until(async () => ((await untilStored(fae, 3))[2].record.sent as unknown[] | undefined)?.length !== 0);
  const sent = (await untilStored(fae, 3)).map(({ record }) => (record.sent as string[] | undefined) ?? []);
  t.is(records.length, 3);
  const all = sent.flat();
  t.is(new Set(all).size, all.length, `no id in two turns: ${JSON.stringify(sent)}`);
  for (const ids of sent) t.true(ids.length <= 1, `a turn holds its own answer's id only: ${JSON.stringify(sent)}`);
});

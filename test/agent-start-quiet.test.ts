// At every start fae looks at the names at the top of its directory for
// tools a host introduced there (introduced-tools.ts). Most of those names
// hold plain data: fae's own settings and grants, a value the host stored.
// Asking plain data for its methods is answered with an error, which a real
// daemon's worker writes to its log, with a stack, as "CapTP Endo
// exception" (seen on the August daemon at every start of fae). fae asks
// only what can answer: plain data is told apart once it is read.
import test from 'ava';
import { E } from '@endo/far';
import { startReadyFae } from './support/fae-harness.js';
import { echoReply, makeScriptedProvider } from './support/scripted-provider.js';
import { makeToolCaplet } from './support/tool-caplets.js';
import { makeNamedTool } from './support/registry-tools.js';
import { until } from './support/until.js';

test('a start asks no plain value in fae\'s directory for its methods, and still moves an introduced tool', async t => {
  const { provider } = makeScriptedProvider(Array.from({ length: 4 }, () => echoReply));
  const { daemon, host, fae, ask } = await startReadyFae(t, {
    provider,
    prepare: async (preparing, localDaemon) => {
      await E(preparing).storeValue(harden({ colour: 'green', sizes: [1, 2] }), 'note');
      await E(preparing).storeValue('plain text', 'memo');
      await makeToolCaplet(localDaemon, 'greeter', () => makeNamedTool('greet'));
    },
    introducedNames: { note: 'note', memo: 'memo', greeter: 'greeter' },
  });
  // The introduced tool went under tools/; the plain values stayed where they were.
  await until(async () => (await E(fae).list('tools')).includes('greeter'));
  t.true((await E(fae).has('note')) && (await E(fae).has('memo')));
  t.is(await ask('hi'), 're: hi');
  // Nothing at all went wrong on fae's side of the connection.
  t.deepEqual(daemon.workerExceptions(), []);

  // A restart looks again, and finds the same plain values.
  await daemon.restart();
  t.is(await ask('again'), 're: again');
  // Only the calls the restart cut off.
  t.deepEqual(daemon.workerExceptions().filter(text => text !== 'Daemon restarted'), []);
  t.deepEqual(await E(host).lookup(['profile-for-fae', 'note']), { colour: 'green', sizes: [1, 2] });
});

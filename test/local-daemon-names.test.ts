import test from 'ava';
import { E } from '@endo/far';
import { makeLocalDaemon } from './support/daemon.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

test('a fresh guest lists its special names, sorted', async t => {
  const daemon = makeLocalDaemon();
  const host: Far = await daemon.host;
  const guest: Far = await E(host).provideGuest('fae', { agentName: 'profile-for-fae' });
  t.deepEqual(await E(guest).list(), ['AGENT', 'HOST', 'MAIL', 'SELF']);
  t.deepEqual(await E(host).list(), ['AGENT', 'APPS', 'ENDO', 'HOST', 'INFO', 'MAIL', 'MAIN', 'NETS', 'NONE', 'PINS', 'SELF', 'fae', 'profile-for-fae']);
  await daemon.stop();
});

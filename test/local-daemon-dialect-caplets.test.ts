// Caplets, pins and restart in the May and August dialects (next spec
// §5.2, §7): '@main' and '@none' by default, '@pins' revival, follow*
// results that die with the daemon.
import test from 'ava';
import { E } from '@endo/far';
import { follow, makeLocalDaemon } from './support/daemon.js';

// `any`: daemon objects are remote presences.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

for (const dialect of ['may', 'aug'] as const) {
  test(`${dialect}: a pinned caplet is made again at restart; readers die with the daemon`, async t => {
    const daemon = makeLocalDaemon({ dialect });
    const host: Far = await daemon.host;
    const guest: Far = await E(host).provideGuest('fae', { agentName: 'profile-for-fae' });
    let makes = 0;
    await daemon.makeCaplet(
      async (powers: Promise<Far>) => {
        makes += 1;
        await E(powers).send('@host', [`started ${makes}`], [], []);
        return 'ok';
      },
      { powersName: 'profile-for-fae', resultName: 'controller-for-fae' },
    );
    await E(host).copy(['controller-for-fae'], ['@pins', 'controller-for-fae']);
    t.deepEqual(await E(host).list('@pins'), ['controller-for-fae']);
    // Unbinding the result name leaves the pin holding the formula.
    await E(host).remove('controller-for-fae');
    const inbox = follow(E(guest).followMessages());
    await inbox.next();
    const pending = inbox.next();
    await daemon.restart();
    await t.throwsAsync(pending, { message: 'Daemon restarted' });
    t.is(makes, 2);
    const texts = ((await E(host).listMessages()) as { strings: string[] }[]).map(m => m.strings[0]);
    t.deepEqual(texts, ['started 1', 'started 2']);
    await daemon.stop();
  });
}

// Turns run concurrently across correspondents (issue 16): a slow turn of
// one correspondent holds up nobody else, at most FAE_CONCURRENT_TURNS run
// at once, one correspondent's turns stay in order, every message gets
// exactly one answer, and nobody's words reach anybody else's requests,
// also across a restart in the middle.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { E } from '@endo/far';
import { makePromiseKit } from '@endo/promise-kit';
import { startFaeInDaemon, type Far } from './support/fae-harness.js';
import { lastUserWords, makeScriptedProvider, type RecordedRequest, type ScriptedReply } from './support/scripted-provider.js';
import { fromSelf, messageText, nextMessage } from './support/daemon.js';

const WAIT_MS = 60_000;

const userWords = (request: RecordedRequest) =>
  request.messages.filter(m => m.role === 'user').map(m => lastUserWords([m]));

/** fae with `count` guests who can write to it; the model answers with `respond`. */
const startWithGuests = async (
  t: ExecutionContext,
  count: number,
  respond: ScriptedReply,
  env: Record<string, string> = {},
) => {
  t.timeout(300_000);
  const llm = makeScriptedProvider(Array.from({ length: 400 }, () => respond));
  const started = await startFaeInDaemon({ provider: llm.provider, env });
  t.teardown(() => started.daemon.stop());
  await started.nextFromFae(WAIT_MS);
  const names = Array.from({ length: count }, (_, i) => `writer-${i}`);
  const guests: Far[] = await Promise.all(
    names.map(name => E(started.host).provideGuest(name, { introducedNames: { fae: 'fae' }, agentName: `${name}-agent` })),
  );
  /** Resolves with every answer guest `i` got, once it has `count`. */
  const answersOf = async (i: number, count: number) => {
    const seen: string[] = [];
    let after = -1n;
    while (seen.length < count) {
      const m = await nextMessage(
        guests[i],
        async (r: { number: bigint }) => r.number > after && (await fromSelf(guests[i])(r as never)),
        WAIT_MS,
      );
      after = m.number;
      seen.push(messageText(m));
    }
    return seen;
  };
  const send = (i: number, words: string) => E(guests[i]).send('fae', [words], [], []);
  return { ...started, llm, names, guests, send, answersOf };
};

test('a slow turn of one correspondent holds nobody else up', async t => {
  const slow = makePromiseKit<void>();
  const world = await startWithGuests(t, 2, async request => {
    const words = lastUserWords(request.messages);
    if (words === 'ada asks slowly') await slow.promise;
    return { text: `re: ${words}` };
  });
  await world.send(0, 'ada asks slowly');
  await world.send(1, 'bo asks');
  // bo's answer comes while ada's turn still waits for the model.
  t.deepEqual(await world.answersOf(1, 1), ['re: bo asks']);
  slow.resolve();
  t.deepEqual(await world.answersOf(0, 1), ['re: ada asks slowly']);
});

test('ten correspondents: at most FAE_CONCURRENT_TURNS at once, each in order, each answered once, nobody mixed; a restart in the middle loses nothing', async t => {
  let inFlight = 0;
  let most = 0;
  const fourRunning = makePromiseKit<void>();
  const world = await startWithGuests(t, 10, async request => {
    inFlight += 1;
    most = Math.max(most, inFlight);
    if (inFlight >= 4) fourRunning.resolve();
    // The first turns wait until four run together: they can only if fae runs them at once.
    await Promise.race([fourRunning.promise, new Promise(resolve => setTimeout(resolve, 20_000))]);
    await new Promise(resolve => setTimeout(resolve, 5));
    inFlight -= 1;
    return { text: `re: ${lastUserWords(request.messages)}` };
  });
  await Promise.all(world.names.map((name, i) => world.send(i, `${name} says 1`)));
  const firsts = await Promise.all(world.names.map((_, i) => world.answersOf(i, 1)));
  t.deepEqual(firsts, world.names.map(name => [`re: ${name} says 1`]));
  t.is(most, 4);

  // Two more each, the second sent right after the first; a restart comes in the middle.
  await Promise.all(world.names.map((name, i) => world.send(i, `${name} says 2`)));
  await world.daemon.restart();
  await E(await E(world.host).lookup('controller-for-fae')).whenStarted();
  await Promise.all(world.names.map((name, i) => world.send(i, `${name} says 3`)));
  const all = await Promise.all(world.names.map((_, i) => world.answersOf(i, 3)));
  // Exactly once each (a message answered before the restart is not answered again), in order.
  t.deepEqual(all, world.names.map(name => [`re: ${name} says 1`, `re: ${name} says 2`, `re: ${name} says 3`]));
  t.true(most <= 4);
  const fromFae = await Promise.all(
    world.guests.map(async guest => {
      const messages = await E(guest).listMessages();
      const own = await Promise.all(messages.map((m: never) => fromSelf(guest)(m)));
      return own.filter(Boolean).length;
    }),
  );
  t.deepEqual(fromFae, world.names.map(() => 3));
  // Each correspondent's last request holds their own words, in order, and nobody else's.
  for (const name of world.names) {
    const last = world.llm.requests.filter(r => lastUserWords(r.messages) === `${name} says 3`).at(-1);
    t.deepEqual(last === undefined ? [] : userWords(last), [`${name} says 1`, `${name} says 2`, `${name} says 3`]);
  }
});

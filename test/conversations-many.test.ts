// Many correspondents: fae holds a bounded number of conversations in
// memory (FAE_HELD_CONVERSATIONS); one that falls out is read back from
// the store when its correspondent writes again, whole and unmixed.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { E } from '@endo/far';
import { startFaeInDaemon, type Far } from './support/fae-harness.js';
import { lastUserWords, makeScriptedProvider, type RecordedRequest } from './support/scripted-provider.js';
import { fromSelf, messageText, nextMessage } from './support/daemon.js';
import { faultyPowers, makeFaults } from './support/faulty-powers.js';
import { waitForLog } from './support/registry-tools.js';

const WAIT_MS = 30_000;
const NAMES = ['ada', 'bo', 'cy', 'di'];

const userWords = (request: RecordedRequest) =>
  request.messages.filter(m => m.role === 'user').map(m => lastUserWords([m]));

/** fae with room for two conversations, and four guests who can write to it. */
const startWithFourGuests = async (t: ExecutionContext, faults = makeFaults()) => {
  t.timeout(300_000);
  const llm = makeScriptedProvider();
  const started = await startFaeInDaemon({
    provider: llm.provider,
    env: { FAE_HELD_CONVERSATIONS: '2' },
    wrapPowers: powers => faultyPowers(powers, faults),
  });
  t.teardown(() => started.daemon.stop());
  await started.nextFromFae(WAIT_MS);
  const guests: Far[] = await Promise.all(
    NAMES.map(name => E(started.host).provideGuest(name, { introducedNames: { fae: 'fae' }, agentName: `${name}-agent` })),
  );
  /** Sends `words` from guest `i`; resolves once fae answered and is done with the message (stored, or kept to store). */
  const ask = async (i: number, words: string) => {
    llm.push(request => ({ text: `re: ${lastUserWords(request.messages)}` }));
    const from = started.logs.length;
    await E(guests[i]).send('fae', [words], [], []);
    await nextMessage(
      guests[i],
      async (m: Parameters<ReturnType<typeof fromSelf>>[0]) => messageText(m) === `re: ${words}` && (await fromSelf(guests[i])(m)),
      WAIT_MS,
    );
    await waitForLog(started.logs, ['message-done'], { from, timeoutMs: WAIT_MS });
  };
  return { ...started, llm, ask };
};

test('turns answered while the store refuses stay held past the bound, and are stored once it is back', async t => {
  const faults = makeFaults();
  const world = await startWithFourGuests(t, faults);
  faults.refuse('storeValue', ([, path]) => Array.isArray(path) && path[0] === 'conversations');
  faults.refuse('makeDirectory', ([path]) => Array.isArray(path) && path[0] === 'conversations');
  for (const [i, name] of NAMES.entries()) await world.ask(i, `${name} says 1`);
  // Four conversations with a turn the store lacks: none may fall out of memory.
  const during = await E(world.controller).status();
  t.is(during.storage, 'unavailable');
  t.is(during.unstoredTurns, NAMES.length);
  faults.allow('storeValue');
  faults.allow('makeDirectory');
  for (const [i, name] of NAMES.entries()) await world.ask(i, `${name} says 2`);
  t.deepEqual(
    world.llm.requests.slice(NAMES.length).map(userWords),
    NAMES.map(name => [`${name} says 1`, `${name} says 2`]),
  );
  const after = await E(world.controller).status();
  t.is(after.storage, 'ok');
  t.is(after.unstoredTurns, 0);
  // And they are in the store: after a restart, each first words come back.
  await world.daemon.restart();
  await E(await E(world.host).lookup('controller-for-fae')).whenStarted();
  await world.ask(0, 'ada says 3');
  t.deepEqual(userWords(world.llm.requests.at(-1)!), ['ada says 1', 'ada says 2', 'ada says 3']);
});

test('with room for two conversations, four correspondents each find their own earlier words, and no one else\'s', async t => {
  const world = await startWithFourGuests(t);
  for (const round of [1, 2]) {
    for (const [i, name] of NAMES.entries()) {
      await world.ask(i, `${name} says ${round}`);
    }
  }
  // Each second request holds that correspondent's first words, read back
  // from the store (only two conversations fit in memory), and nobody else's.
  t.deepEqual(
    world.llm.requests.slice(NAMES.length).map(userWords),
    NAMES.map(name => [`${name} says 1`, `${name} says 2`]),
  );
  const status = await E(world.controller).status();
  t.is(status.conversations, NAMES.length);
  t.true(status.conversationSizes.length <= 8);
  t.true(world.logs.filter((line: string) => line.includes('conversation-restored')).length >= 2);
});

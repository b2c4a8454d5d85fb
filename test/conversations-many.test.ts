// Many correspondents: fae holds a bounded number of conversations in
// memory (FAE_HELD_CONVERSATIONS); one that falls out is read back from
// the store when its correspondent writes again, whole and unmixed.
import test from 'ava';
import { E } from '@endo/far';
import { startFaeInDaemon, type Far } from './support/fae-harness.js';
import { lastUserWords, makeScriptedProvider, type RecordedRequest } from './support/scripted-provider.js';
import { fromSelf, messageText, nextMessage } from './support/daemon.js';

const WAIT_MS = 30_000;
const NAMES = ['ada', 'bo', 'cy', 'di'];

const userWords = (request: RecordedRequest) =>
  request.messages.filter(m => m.role === 'user').map(m => lastUserWords([m]));

test('with room for two conversations, four correspondents each find their own earlier words, and no one else\'s', async t => {
  t.timeout(300_000);
  const llm = makeScriptedProvider();
  const answer = (request: RecordedRequest) => ({ text: `re: ${lastUserWords(request.messages)}` });
  const started = await startFaeInDaemon({ provider: llm.provider, env: { FAE_HELD_CONVERSATIONS: '2' } });
  t.teardown(() => started.daemon.stop());
  await started.nextFromFae(WAIT_MS);
  const guests: Far[] = await Promise.all(
    NAMES.map(name => E(started.host).provideGuest(name, { introducedNames: { fae: 'fae' }, agentName: `${name}-agent` })),
  );
  const ask = async (guest: Far, words: string) => {
    llm.push(answer);
    await E(guest).send('fae', [words], [], []);
    const reply = await nextMessage(
      guest,
      async (m: Parameters<ReturnType<typeof fromSelf>>[0]) => messageText(m) === `re: ${words}` && (await fromSelf(guest)(m)),
      WAIT_MS,
    );
    return reply;
  };
  for (const round of [1, 2]) {
    for (const [i, name] of NAMES.entries()) {
      await ask(guests[i], `${name} says ${round}`);
    }
  }
  // Each second request holds that correspondent's first words, read back
  // from the store (only two conversations fit in memory), and nobody else's.
  const seconds = llm.requests.slice(NAMES.length);
  t.deepEqual(
    seconds.map(userWords),
    NAMES.map(name => [`${name} says 1`, `${name} says 2`]),
  );
  const status = await E(started.controller).status();
  t.is(status.conversations, NAMES.length);
  t.true(status.conversationSizes.length <= 8);
  t.true(started.logs.filter((line: string) => line.includes('conversation-restored')).length >= 2);
});

// A finished turn waits (briefly) for fae's own copy of its answer, so that
// the turn's record links the answer's id in the same write
// (src/conversations/open-turns.ts): a correspondent who does not write
// back at once costs one write per turn, not a second that adds the link
// (link-writes.ts). After a restart a reply to the answer finds its thread.
import test from 'ava';
import { E } from '@endo/far';
import { startFaeInDaemon } from './support/fae-harness.js';
import { makeScriptedProvider, type RecordedRequest } from './support/scripted-provider.js';
import { fromSelf, messageText, nextMessage } from './support/daemon.js';
import { faultyPowers, makeFaults } from './support/faulty-powers.js';
import { untilStored } from './support/stored-nodes.js';
import { LINK_PAUSE_MS } from '../src/conversations/link-writes.js';

const WAIT_MS = 30_000;
const BUSY_TIMEOUT_MS = 300_000;

/** Answers with how many user messages the model was shown. */
const countUsers = (request: RecordedRequest) => ({
  text: `users ${request.messages.filter(message => message.role === 'user').length}`,
});

test("one write per turn: the turn's record links fae's answer, and a reply to the answer after a restart continues the thread", async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const faults = makeFaults();
  const writes: string[] = [];
  faults.refuse('storeValue', ([, path]) => {
    if (Array.isArray(path) && path[0] === 'conversations') writes.push(path.join('/'));
    return false;
  });
  const llm = makeScriptedProvider(Array.from({ length: 4 }, () => countUsers));
  const { host, fae, nextFromFae, daemon } = await startFaeInDaemon({
    provider: llm.provider,
    wrapPowers: powers => faultyPowers(powers, faults),
  });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  const alice = await E(host).provideGuest('alice', { introducedNames: { fae: 'fae' }, agentName: 'alice-agent' });
  await E(alice).send('fae', ['hello'], [], []);
  const answer = await nextMessage(alice, fromSelf(alice), WAIT_MS);
  t.is(messageText(answer), 'users 1');
  const [stored] = await untilStored(fae, 1);
  // Long past the pause after which a link is written on its own.
  await new Promise(resolve => setTimeout(resolve, LINK_PAUSE_MS * 4));
  t.is(writes.length, 1, writes.join(', '));
  t.deepEqual(stored.record.sent, [answer.messageId]);

  await daemon.restart();
  await E(alice).reply(answer.number, ['and a reply to your answer'], [], []);
  t.is(messageText(await nextMessage(alice, async m => (await fromSelf(alice)(m)) && m.number > answer.number, WAIT_MS)), 'users 2');
});

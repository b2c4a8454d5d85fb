// The sender's name in the model's view of a message (sender-names.ts): read
// once per sender while fae's own names stay as they are, and read again
// after any of them changes.
import test from 'ava';
import { E } from '@endo/far';
import { startFaeInDaemon, type Far } from './support/fae-harness.js';
import { makeScriptedProvider } from './support/scripted-provider.js';
import { dialect, fromSelf, nextMessage, specialNames } from './support/daemon.js';

const WAIT_MS = 30_000;
const BUSY_TIMEOUT_MS = 300_000;
const SENDER_NAMES_METHODS = ['reverseIdentify', 'reverseLocate'];

test('a sender seen before costs no daemon call; a name given to it afterwards is used at once', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const llm = makeScriptedProvider([{ text: 'one' }, { text: 'two' }, { text: 'three' }, { text: 'four' }]);
  const { host, fae, nextFromFae, daemon, logs } = await startFaeInDaemon({ provider: llm.provider });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  const senderLookups = () => {
    const counts = daemon.callCounts();
    return SENDER_NAMES_METHODS.reduce((sum, name) => sum + (counts[name] ?? 0), 0);
  };
  const lastUserText = () => llm.requests.at(-1)?.messages.at(-1)?.content ?? '';

  const before = senderLookups();
  await E(host).send('fae', ['first'], [], []);
  await nextFromFae(WAIT_MS);
  t.is(senderLookups() - before, 1);
  t.true(lastUserText().startsWith(`Message #`));
  t.true(lastUserText().includes(`from ${specialNames.host}:`));

  await E(host).send('fae', ['second'], [], []);
  await nextFromFae(WAIT_MS);
  t.is(senderLookups() - before, 1);

  // alice has no name in fae's directory; then the host gives her one there.
  const alice = await E(host).provideGuest('alice', { introducedNames: { fae: 'fae' }, agentName: 'alice-agent' });
  await E(alice).send('fae', ['hello from alice'], [], []);
  await nextMessage(alice, fromSelf(alice), WAIT_MS);
  t.regex(lastUserText(), /from an unnamed sender \(unnamed-[0-9a-f]{8}\): hello from alice$/);
  const aliceId: string = await E(alice).identify(specialNames.self);
  const seen = logs.length;
  await (dialect === 'feb' ? E(fae).write('alice-friend', aliceId) : E(fae).storeIdentifier('alice-friend', aliceId));
  await E(alice).send('fae', ['hello again'], [], []);
  await nextMessage(alice, async record => (await fromSelf(alice)(record)) && record.strings?.[0] === 'four', WAIT_MS);
  t.true(lastUserText().includes('from alice-friend:'), lastUserText());
  t.false(logs.slice(seen).some(line => line.includes('names-follow-lost')));
});

test('senders fae has no name for are told apart, each by the label status() lists it under', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const llm = makeScriptedProvider([{ text: 'one' }, { text: 'two' }, { text: 'three' }, { text: 'four' }]);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({ provider: llm.provider });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  const guest = (name: string) => E(host).provideGuest(name, { introducedNames: { fae: 'fae' }, agentName: `${name}-agent` });
  const [alice, bob] = await Promise.all([guest('alice'), guest('bob')]);
  /** The number of fae's latest answer to each writer. */
  const answered = new Map<Far, bigint>();
  /** The label the model was told `writer`'s message under, once fae answered it. */
  const labelOf = async (writer: Far, words: string) => {
    await E(writer).send('fae', [words], [], []);
    const after = answered.get(writer) ?? -1n;
    const answer = await nextMessage(writer, async m => m.number > after && (await fromSelf(writer)(m)), WAIT_MS);
    answered.set(writer, answer.number);
    const text: string = llm.requests.at(-1)?.messages.at(-1)?.content ?? '';
    const label = /from an unnamed sender \((unnamed-[0-9a-f]{8})\): /.exec(text)?.[1];
    t.truthy(label, text);
    return label;
  };
  const aliceLabel = await labelOf(alice, 'from alice');
  const bobLabel = await labelOf(bob, 'from bob');
  t.not(aliceLabel, bobLabel);
  t.is(await labelOf(alice, 'alice again'), aliceLabel, 'the same sender, the same label');
  const status = await E(E(host).lookup('controller-for-fae')).status();
  const listed: string[] = status.usage.correspondents.map((entry: { name: string }) => entry.name);
  t.true(listed.includes(aliceLabel!) && listed.includes(bobLabel!), listed.join(', '));
});

// What one correspondent can make fae keep (issue 33): each reply to a
// message fae knows in no thread opens a thread (a store directory and an
// index entry, read back to place later replies), so a correspondent may
// have at most THREADS_PER_CORRESPONDENT of them; past it a reply to an
// unknown message continues the main thread. Every dialect.
import test from 'ava';
import { E } from '@endo/far';
import { startFaeInDaemon } from './support/fae-harness.js';
import { makeScriptedProvider, type ScriptedReply } from './support/scripted-provider.js';
import { messageText } from './support/daemon.js';
import { untilStored } from './support/stored-nodes.js';
import { THREADS_PER_CORRESPONDENT } from '../src/conversations/thread-finder.js';

const WAIT_MS = 60_000;
const NOTES = THREADS_PER_CORRESPONDENT + 8;

test('a correspondent has at most THREADS_PER_CORRESPONDENT threads; past them a reply to an unknown message goes to the main thread', async t => {
  t.timeout(600_000);
  // First, fae sends the host one note of its own per thread to be (each a message fae knows in no thread).
  const sendNotes: ScriptedReply = request =>
    request.messages.at(-1)?.role === 'tool'
      ? { text: 'sent' }
      : { toolCalls: Array.from({ length: NOTES }, (_, i) => ({ name: 'send', arguments: { recipient: 'HOST', strings: [`note ${i}`] } })) };
  const llm = makeScriptedProvider([sendNotes, sendNotes]);
  const { host, fae, nextFromFae, daemon } = await startFaeInDaemon({ provider: llm.provider });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);
  await E(host).send('fae', ['send me your notes'], [], []);
  const notes = [];
  while (notes.length < NOTES) {
    const message = await nextFromFae(WAIT_MS);
    if (messageText(message).startsWith('note ')) notes.push(message);
  }
  // The host replies to each note: each would open a thread of its own.
  for (let i = 0; i < NOTES; i += 1) llm.push(request => ({ text: `seen ${request.messages.filter(m => m.role === 'user').length}` }));
  for (const note of notes) {
    await E(host).reply(note.number, [`about ${messageText(note)}`], [], []);
    let answer;
    do answer = await nextFromFae(WAIT_MS);
    while (!messageText(answer).startsWith('seen '));
  }
  const nodes = await untilStored(fae, NOTES + 1);
  const threads = new Set(nodes.map(({ key }) => key.replace(/-g\d+$/, '')));
  t.is(threads.size, THREADS_PER_CORRESPONDENT, [...threads].join(' '));
});

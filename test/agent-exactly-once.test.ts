// Each message is answered exactly once: a built-in reply or send counts
// for the message it answers, found by number, never for whatever message
// fae is handling when the daemon finally carries it out. Here a reply (or
// send) from one turn is held by a slow daemon past the tool's time limit
// and lands during the next turn, whose plain answer must still go out.
import test from 'ava';
import { E } from '@endo/far';
import { startFaeInDaemon } from './support/fae-harness.js';
import { makeScriptedProvider, type RecordedRequest, type ScriptedStep } from './support/scripted-provider.js';
import { messageText } from './support/daemon.js';
import { faultyPowers, makeFaults } from './support/faulty-powers.js';

const WAIT_MS = 30_000;
const LATE_WORDS = 'words from the first turn';

/** The number of the message the model is asked about. */
const numberAsked = (request: RecordedRequest) => {
  const user = request.messages.filter(m => m.role === 'user').at(-1)?.content ?? '';
  const match = /^Message #(\d+)/.exec(user);
  if (match === null) throw Error(`no message number in ${JSON.stringify(user)}`);
  return Number(match[1]);
};

type LateCall = 'reply' | 'send';

const lateCallStep = (kind: LateCall) => (request: RecordedRequest): ScriptedStep => ({
  toolCalls: [
    kind === 'reply'
      ? { name: 'reply', arguments: { messageNumber: numberAsked(request), strings: [LATE_WORDS] } }
      : { name: 'send', arguments: { recipient: 'HOST', strings: [LATE_WORDS] } },
  ],
});

const holdsLateWords = (args: readonly unknown[]) =>
  args.some(arg => Array.isArray(arg) && arg.includes(LATE_WORDS));

for (const kind of ['reply', 'send'] as const) {
  test(`a ${kind} from one turn that lands during the next does not take the next message's answer`, async t => {
    const faults = makeFaults();
    const release = faults.hold(kind, holdsLateWords);
    // The host, once fae is started (`any`: a remote reference).
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const reach: { host?: any } = {};
    const sawLateWords = async () => {
      for (;;) {
        const messages: { strings?: readonly string[] }[] = await E(reach.host).listMessages();
        if (messages.some(m => m.strings?.includes(LATE_WORDS))) return;
        await new Promise(resolve => setTimeout(resolve, 20));
      }
    };
    const llm = makeScriptedProvider([
      lateCallStep(kind),
      // The held call timed out; the model answers in plain words.
      { text: 'answer one' },
      async () => {
        // The first turn's call lands now, while the second turn runs.
        release();
        await sawLateWords();
        await new Promise(resolve => setTimeout(resolve, 50));
        return { text: 'answer two' };
      },
    ]);
    const started = await startFaeInDaemon({
      provider: llm.provider,
      // Kept in the inbox, so the late reply can still be carried out.
      env: { FAE_TOOL_TIMEOUT_MS: '300', FAE_AUTO_DISMISS: '0' },
      wrapPowers: powers => faultyPowers(powers, faults),
    });
    t.teardown(() => started.daemon.stop());
    reach.host = started.host;
    await started.nextFromFae(WAIT_MS);
    await E(started.host).send('fae', ['first question'], [], []);
    t.is(messageText(await started.nextFromFae(WAIT_MS)), 'answer one');
    await E(started.host).send('fae', ['second question'], [], []);
    const texts = [messageText(await started.nextFromFae(WAIT_MS)), messageText(await started.nextFromFae(WAIT_MS))];
    t.deepEqual(texts.sort(), ['answer two', LATE_WORDS].sort());
    // The first turn's tool call was given up on, and said so to the model.
    t.regex(llm.requests[1].messages.filter(m => m.role === 'tool').at(-1)?.content ?? '', /did not answer within 300 ms/);
  });
}

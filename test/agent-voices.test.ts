// fae's notices in two voices (issue 21): a correspondent reads a short
// plain sentence naming its message by its first words, with nothing of
// the host's setup in it; the host reads the operator's detail, as the
// answer when it sent the message itself, else as a report of its own,
// once per kind of trouble per ten minutes.
import test from 'ava';
import { E } from '@endo/far';
import { createProvider } from '../providers/index.js';
import { startReadyFae, type Far } from './support/fae-harness.js';
import { formulaIdOf } from '../src/daemon/dialect.js';
import { makeScriptedProvider, type ScriptedReply } from './support/scripted-provider.js';
import { makeCorrespondent } from './support/correspondent.js';
import { closedLoopbackUrl, TEST_TOKEN } from './support/llm-server.js';
import { messageText, type MessageRecord } from './support/daemon.js';

const UNREACHABLE: ScriptedReply = {
  error: 'cannot reach the LLM at http://127.0.0.1:9/v1 (ECONNREFUSED); check LAL_HOST and that the server is running',
  trouble: 'unreachable',
};
const TIMED_OUT: ScriptedReply = {
  error: 'the LLM at http://127.0.0.1:9/v1 did not answer within 500 ms; raise LAL_TIMEOUT_MS or check the server',
  trouble: 'timeout',
};

/** What the operator's detail shows, which a correspondent must not read. */
const OPERATOR_DETAIL = /https?:|LAL_|FAE_|ECONN|127\.0\.0\.1/;

/** fae's messages to the host so far, the ready message left out. */
const reportsTo = async (host: Far) => {
  const faeId: string = await E(host).identify('fae');
  const mail: MessageRecord[] = await E(host).listMessages();
  return mail
    .filter(m => formulaIdOf(m.from) === faeId)
    .map(messageText)
    .filter(text => !text.startsWith('Fae agent ready.'));
};

test("a correspondent's failure notice is plain and names its message; the host reads the detail", async t => {
  const url = await closedLoopbackUrl('openai');
  const env = { LAL_HOST: url, LAL_MAX_RETRIES: '0', LAL_AUTH_TOKEN: TEST_TOKEN };
  const { host, nextFromFae } = await startReadyFae(t, { provider: createProvider(env), env });
  const alice = await makeCorrespondent(host);
  await alice.say('what is the weather in Paris tomorrow?');
  const notice = await alice.next();
  t.is(notice, 'Sorry — I can\'t reach my language model right now; my host knows of this trouble. (About "what is the weather in…")');
  t.notRegex(notice, OPERATOR_DETAIL);
  const report = messageText(await nextFromFae());
  t.true(
    /^I could not answer the message "what is the weather in…" from an unnamed sender \(unnamed-[0-9a-f]{8}\): /.test(report) &&
      report.includes(`: cannot reach the LLM at ${url}`),
    report,
  );
  t.regex(report, /check LAL_HOST/);
  t.regex(report, /at most once every 10 minutes/);
  t.false(report.includes(TEST_TOKEN));
});

test('the host hears once of two failures of one kind in a row, and again of another kind', async t => {
  const llm = makeScriptedProvider([UNREACHABLE, UNREACHABLE, TIMED_OUT, { text: 'pong' }]);
  const { host } = await startReadyFae(t, { provider: llm.provider });
  const alice = await makeCorrespondent(host);
  await alice.say('first');
  t.is(await alice.next(), 'Sorry — I can\'t reach my language model right now; my host knows of this trouble. (About "first")');
  await alice.say('second');
  t.is(await alice.next(), 'Sorry — I can\'t reach my language model right now; my host knows of this trouble. (About "second")');
  await alice.say('third');
  t.is(await alice.next(), 'Sorry — my language model took too long to answer; my host knows of this trouble. (About "third")');
  await alice.say('ping');
  t.is(await alice.next(), 'pong');
  // Each turn reports before the next of its sender starts: all are in.
  const reports = await reportsTo(host);
  t.is(reports.length, 2, reports.join('\n---\n'));
  t.regex(reports[0], /^I could not answer the message "first" from an unnamed sender \(unnamed-[0-9a-f]{8}\): cannot reach the LLM/);
  t.regex(reports[1], /^I could not answer the message "third" from an unnamed sender \(unnamed-[0-9a-f]{8}\): the LLM .* did not answer within 500 ms; raise LAL_TIMEOUT_MS/);
});

test("a host's failing message gets one answer, the detailed one, which counts as the report", async t => {
  const llm = makeScriptedProvider([UNREACHABLE, { text: 'pong' }, UNREACHABLE, { text: 'pong again' }]);
  const { host, ask } = await startReadyFae(t, { provider: llm.provider });
  t.is(
    await ask('hello?'),
    'Sorry, I could not answer your message "hello?": cannot reach the LLM at http://127.0.0.1:9/v1 (ECONNREFUSED); check LAL_HOST and that the server is running',
  );
  t.is(await ask('ping'), 'pong', 'no second message about the first');
  // The host has just read of this kind: a correspondent's failure of it is not reported again.
  const alice = await makeCorrespondent(host);
  await alice.say('are you there?');
  t.regex(await alice.next(), /^Sorry — I can't reach my language model right now/);
  await alice.say('ping');
  t.is(await alice.next(), 'pong again');
  t.deepEqual((await reportsTo(host)).slice(2), []);
});

test("a correspondent's turn at the iteration limit: plain words to it, FAE_MAX_ITERATIONS to the host", async t => {
  const looping = { toolCalls: [{ name: 'list', arguments: {} }] };
  const llm = makeScriptedProvider([looping, looping]);
  const { host, nextFromFae } = await startReadyFae(t, { provider: llm.provider, env: { FAE_MAX_ITERATIONS: '2' } });
  const alice = await makeCorrespondent(host);
  await alice.say('loop forever please');
  const notice = await alice.next();
  t.is(
    notice,
    'Sorry — I stopped before finishing: answering took more steps than I may take for one message. Please send a simpler or more specific request. (About "loop forever please")',
  );
  t.notRegex(notice, OPERATOR_DETAIL);
  t.regex(
    messageText(await nextFromFae()),
    /^I stopped working on the message "loop forever please" from an unnamed sender \(unnamed-[0-9a-f]{8}\) after 2 model calls without finishing \(the limit is FAE_MAX_ITERATIONS=2\)\./,
  );
});

test("a correspondent's cut-off answer says so plainly; the host is told of LAL_MAX_TOKENS", async t => {
  const llm = makeScriptedProvider([{ text: 'The list is long and', stopReason: 'max_tokens' }]);
  const { host, nextFromFae } = await startReadyFae(t, { provider: llm.provider });
  const alice = await makeCorrespondent(host);
  await alice.say('list everything');
  t.is(await alice.next(), 'The list is long and\n\n(This answer was cut off at my length limit.)');
  t.regex(
    messageText(await nextFromFae()),
    /^My answer to the message "list everything" from an unnamed sender \(unnamed-[0-9a-f]{8}\) was cut off at the output limit; raise LAL_MAX_TOKENS/,
  );
});

test('a message that starts with a secret is named without it, to the sender and to the host', async t => {
  const token = 'sk-test-voices-secret-98765';
  const llm = makeScriptedProvider([UNREACHABLE]);
  const { host, nextFromFae, logs } = await startReadyFae(t, { provider: llm.provider, env: { LAL_AUTH_TOKEN: token } });
  const alice = await makeCorrespondent(host);
  await alice.say(`${token} is my key`);
  const notice = await alice.next();
  t.regex(notice, /\(About "\[redacted\] is my key"\)$/);
  const report = messageText(await nextFromFae());
  t.regex(report, /the message "\[redacted\] is my key" from/);
  // Not even the part a cut would leave.
  for (const text of [notice, report, ...logs]) t.false(text.includes(token.slice(0, 12)), text);
});

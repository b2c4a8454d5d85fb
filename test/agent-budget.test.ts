// A budget the host sets (issue 23): past FAE_BUDGET_TOKENS in a day, a
// correspondent gets one notice and no model call, later messages that day
// none; the host is told once a day and is exempt itself; a `budget` value
// in fae's directory changes the budget while fae runs.
import test from 'ava';
import { E } from '@endo/far';
import { startFaeInDaemon, type Far } from './support/fae-harness.js';
import { lastUserWords, makeScriptedProvider, type RecordedRequest } from './support/scripted-provider.js';
import { fromSelf, messageText, nextMessage } from './support/daemon.js';
import { waitForLog } from './support/registry-tools.js';
import { BUDGET_NOTICE, makeBudget } from '../src/agent/limits/budget.js';
import { makeLogger } from '../src/logging/log.js';

const WAIT_MS = 30_000;

test('past its budget a correspondent gets one notice and no model call; the host is told once and is exempt; a budget value in fae\'s directory changes it at once', async t => {
  t.timeout(120_000);
  // Every answer costs 120 tokens.
  const answer = (request: RecordedRequest) => ({
    text: `re: ${lastUserWords(request.messages)}`,
    usage: { inputTokens: 80, outputTokens: 40 },
  });
  const llm = makeScriptedProvider(Array.from({ length: 20 }, () => answer));
  const started = await startFaeInDaemon({ provider: llm.provider, env: { FAE_BUDGET_TOKENS: '100' } });
  t.teardown(() => started.daemon.stop());
  await started.nextFromFae();
  const alice: Far = await E(started.host).provideGuest('alice', { introducedNames: { fae: 'fae' }, agentName: 'alice-agent' });
  let seen = -1n;
  /** alice writes; resolves with fae's next answer to her, once fae is done with the message. */
  const aliceAsks = async (words: string) => {
    const from = started.logs.length;
    await E(alice).send('fae', [words], [], []);
    // Done: answered (message-done), or dismissed unanswered (budget-quiet).
    const deadline = Date.now() + WAIT_MS;
    while (!started.logs.slice(from).some(line => /message-done|budget-quiet/.test(line)) && Date.now() < deadline) {
      await new Promise(resolve => setTimeout(resolve, 10));
    }
    const messages = (await E(alice).listMessages()) as { number: bigint }[];
    const fromFae = await Promise.all(messages.map(m => fromSelf(alice)(m as never)));
    const latest = messages.filter((m, i) => fromFae[i] && m.number > seen).at(-1);
    if (latest !== undefined) seen = latest.number;
    return latest === undefined ? undefined : messageText(latest as never);
  };

  t.is(await aliceAsks('first'), 're: first');
  t.is(await aliceAsks('second'), BUDGET_NOTICE);
  t.is(await aliceAsks('third'), undefined);
  // Two model calls: alice's first, none for her later ones.
  t.is(llm.requests.length, 1);
  const report = await nextMessage(started.host, async m => messageText(m).startsWith("Today's budget"), WAIT_MS);
  t.regex(messageText(report), /was reached by: /);

  // The host is exempt.
  await E(started.host).send('fae', ['host asks'], [], []);
  t.is(messageText(await nextMessage(started.host, async m => messageText(m) === 're: host asks', WAIT_MS)), 're: host asks');

  // The host raises the budget in fae's directory: alice is answered again, without a restart.
  const before = started.logs.length;
  await E(started.fae).storeValue(1_000_000, 'budget');
  // Read when fae sees the name change, with no call per turn.
  await waitForLog(started.logs, ['budget-changed', 'tokens=1000000'], { from: before, timeoutMs: WAIT_MS });
  t.is(await aliceAsks('fourth'), 're: fourth');
  // The host was told once.
  const reports = ((await E(started.host).listMessages()) as never[]).filter(m => messageText(m).startsWith("Today's budget"));
  t.is(reports.length, 1);
});

test('the budget holds at every model call: a long turn stops at it, with the notice', async t => {
  t.timeout(120_000);
  // A model that would call a tool for ever, 1,000 tokens a call.
  const forever = () => ({ toolCalls: [{ name: 'list', arguments: {} }], usage: { inputTokens: 900, outputTokens: 100 } });
  const llm = makeScriptedProvider(Array.from({ length: 40 }, () => forever));
  const started = await startFaeInDaemon({ provider: llm.provider, env: { FAE_BUDGET_TOKENS: '100', FAE_MAX_ITERATIONS: '30' } });
  t.teardown(() => started.daemon.stop());
  await started.nextFromFae();
  const alice: Far = await E(started.host).provideGuest('alice', { introducedNames: { fae: 'fae' }, agentName: 'alice-agent' });
  await E(alice).send('fae', ['list everything, again and again'], [], []);
  const answer = await nextMessage(alice, fromSelf(alice), WAIT_MS);
  t.is(messageText(answer), BUDGET_NOTICE);
  // One call went out (and cost 1,000 tokens); the second was refused before it went.
  t.is(llm.requests.length, 1);
  await waitForLog(started.logs, ['turn-over-budget'], { timeoutMs: WAIT_MS });
});

test('a model call claims its cost before it goes: a concurrent one of the same correspondent is refused, settled calls count', t => {
  const budget = makeBudget({ settings: { tokens: 1000, host: false }, logger: makeLogger({ redact: text => text, write: () => {} }), tellHost: async () => {} });
  const first = budget.claim('alice', 'alice', false, 600);
  t.truthy(first);
  // Under way, the first call's claim counts: a call may still go while something is left.
  const second = budget.claim('alice', 'alice', false, 500);
  t.truthy(second, 'within what is left');
  t.is(budget.claim('alice', 'alice', false, 1), undefined, 'claimed in full by the calls under way');
  t.is(budget.check('alice', 'alice', false), 'quiet', 'a new turn is not started either (told once already)');
  // What the calls cost counts once they settle: less than they claimed, and something is left.
  first?.settle(100);
  second?.settle(100);
  t.truthy(budget.claim('alice', 'alice', false, 1));
  t.truthy(budget.claim('bob', 'bob', false, 300), 'another correspondent has a budget of its own');
  t.truthy(budget.claim('host', 'host', true, 10_000), 'the host is exempt');
});

// A small prompt however many tools (issue 38): with a capability of 60
// methods on offer beside the built-ins, the first request's definitions
// stay within FAE_TOOL_TOKENS (12 KB of JSON by default), the rest wait in a
// catalogue, and the model reaches any of them in the same turn: findTools
// answers their definitions, callTool calls one, which is approved (or not)
// as the tool itself. The offered list is the same in every request.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { E } from '@endo/far';
import { startFaeInDaemon } from './support/fae-harness.js';
import { lastMessageNumber, lastToolResults, makeScriptedProvider, type ScriptedReply } from './support/scripted-provider.js';
import { messageText } from './support/daemon.js';
import { makeToolCaplet } from './support/tool-caplets.js';
import { makeWideCapability } from './support/wide-capability.js';
import { answerApproval, makeApprovalReader } from './support/approvals.js';

const WAIT_MS = 30_000;
const METHODS = 60;




/** fae that has adopted `wide` (mailed by the host), then follows `calls`, answering with the last results. */
const startWithWide = async (t: ExecutionContext, calls: readonly ScriptedReply[], env: Record<string, string> = {}) => {
  t.timeout(120_000);
  const llm = makeScriptedProvider([
    request => ({ toolCalls: [{ name: 'adoptTool', arguments: { messageNumber: lastMessageNumber(request), edgeName: 'wide', toolName: 'wide' } }] }),
    { text: 'adopted' },
    ...calls,
    request => ({ text: lastToolResults(request).join('\n---\n') }),
  ]);
  const started = await startFaeInDaemon({
    provider: llm.provider,
    env,
    prepare: async (_host, daemon) => {
      await makeToolCaplet(daemon, 'wide', () => makeWideCapability(METHODS));
    },
  });
  t.teardown(() => started.daemon.stop());
  await started.nextFromFae(WAIT_MS); // ready
  await E(started.host).send('fae', ['Adopt ', ''], ['wide'], ['wide']);
  t.is(messageText(await started.nextFromFae(WAIT_MS)), 'adopted');
  return { ...started, llm, request: (index: number) => llm.requests[index + 2] };
};

test('60 more methods keep the definitions within 12 KB, and the model reaches the 47th in the same turn', async t => {
  const world = await startWithWide(
    t,
    [
      { toolCalls: [{ name: 'findTools', arguments: { query: 'm47' } }] },
      { toolCalls: [{ name: 'callTool', arguments: { name: 'wide__m47', arguments: { arg1: 'hello' } } }] },
    ],
    { FAE_APPROVE: 'readonly:wide' },
  );
  await E(world.host).send('fae', ['use m47'], [], []);
  t.is(messageText(await world.nextFromFae(WAIT_MS)), 'm47 got hello');
  const [first, found, called] = [world.request(0), world.request(1), world.request(2)];
  t.true(JSON.stringify(first.tools).length <= 12_000, `${JSON.stringify(first.tools).length} characters`);
  t.true(first.toolNames.includes('findTools') && first.toolNames.includes('callTool'));
  t.false(first.toolNames.includes('wide__m47'));
  // The definition came as a result, at the end of the prompt; the offered list never changed.
  t.regex(lastToolResults(found)[0], /"name":"wide__m47"/);
  t.deepEqual(called.tools, first.tools);
  t.deepEqual(found.tools, first.tools);
});

test('callTool is approved as the tool it names, and a name that is no tool is said so', async t => {
  const world = await startWithWide(t, [
    { toolCalls: [{ name: 'callTool', arguments: { name: 'wide__m2', arguments: { arg1: 'x' } } }] },
    { toolCalls: [{ name: 'callTool', arguments: { name: 'nothing_here', arguments: {} } }] },
  ]);
  await E(world.host).send('fae', ['use m2'], [], []);
  const reader = makeApprovalReader();
  let request;
  while (request === undefined) request = reader.request(await world.nextFromFae(WAIT_MS));
  t.regex(request.text, /^Approval needed: call `wide\.m2` \(arg1: x\) for you\?/);
  await answerApproval(world.host, request, 'approve');
  let answer;
  while (answer === undefined) {
    const message = await world.nextFromFae(WAIT_MS);
    if (reader.request(message) === undefined && !reader.skip(message)) answer = messageText(message);
  }
  t.regex(answer, /there is no tool \\"nothing_here\\"; findTools finds the tools you can call/);
  t.deepEqual(lastToolResults(world.request(1)), ['m2 got x']);
});

test('without words findTools lists every name; with the budget raised every tool is offered', async t => {
  const world = await startWithWide(t, [{ toolCalls: [{ name: 'findTools', arguments: {} }] }]);
  await E(world.host).send('fae', ['list'], [], []);
  const listing = messageText(await world.nextFromFae(WAIT_MS));
  // Each method is offered (the first ones, as many as fit) or listed.
  const offered = world.request(0).toolNames;
  for (let n = 1; n <= METHODS; n += 1) {
    const name = `wide__m${n}`;
    t.true(offered.includes(name) !== listing.includes(`- ${name}: Calls m${n} of the capability tools/wide`), name);
  }

  const roomy = await startWithWide(t, [{ text: 'ok' }], { FAE_TOOL_TOKENS: '100000' });
  await E(roomy.host).send('fae', ['hi'], [], []);
  await roomy.nextFromFae(WAIT_MS);
  t.false(roomy.request(0).toolNames.includes('findTools'));
  t.true(roomy.request(0).toolNames.includes('wide__m60'));
});

// Stop means stop: what fae gives up on stops too. A model request of a
// turn that is cancelled (fae cancelled, or its message revised on the
// August daemon) or that outlives LAL_TIMEOUT_MS is closed: the loopback
// LLM server of each provider sees its connection go before the answer
// was complete. So is a summary request of a cancelled turn. A tool call
// fae stops waiting for (FAE_TOOL_TIMEOUT_MS, or fae cancelled) is
// cancelled at the tool: run-command leaves no process behind, and a
// FaeTool that offers cancellation is told.
import test, { type ExecutionContext } from 'ava';
import path from 'node:path';
import { E } from '@endo/far';
import { createProvider, type ProviderKind } from '../providers/index.js';
import type { Dialect } from '../src/daemon/dialect.js';
import { make as makeRunCommand } from '../tools/run-command.js';
import { startFaeInDaemon, type FaeHarnessOptions, type Far } from './support/fae-harness.js';
import { messageText } from './support/daemon.js';
import { startLlmServer } from './support/llm-server.js';
import { makeScriptedProvider } from './support/scripted-provider.js';
import { makeCancellableTool, makeToolCaplet } from './support/tool-caplets.js';
import { tempDirs } from './support/temp-dirs.js';
import { killSurvivors, readPids, stillRunningAfter } from './support/processes.js';

const KINDS: readonly ProviderKind[] = ['openai', 'anthropic', 'ollama'];

const tempDir = tempDirs('fae-stop-');

/** fae on a loopback LLM server of `kind`, ready; both stop when the test ends. */
const startFaeOnLlm = async (
  t: ExecutionContext,
  kind: ProviderKind,
  { env = {}, dialect }: { env?: Record<string, string>; dialect?: Dialect } = {},
) => {
  const server = await startLlmServer(kind);
  t.teardown(() => server.close());
  const provider = createProvider(server.env({ LAL_MAX_RETRIES: '0', ...env }));
  const started = await startFaeInDaemon({ provider, env, ...(dialect === undefined ? {} : { dialect }) });
  t.teardown(() => started.daemon.stop());
  await started.nextFromFae();
  return { server, ...started };
};

/** fae with a scripted model, ready; stopped when the test ends. */
const startFae = async (t: ExecutionContext, options: FaeHarnessOptions) => {
  const started = await startFaeInDaemon(options);
  t.teardown(() => started.daemon.stop());
  await started.nextFromFae();
  return started;
};

/** What fae's inbox still holds: the message of a cancelled turn stays for the next start. */
const keptTexts = async (fae: Far) =>
  ((await E(fae).listMessages()) as { strings?: string[] }[]).map(m => m.strings?.[0]);

for (const kind of KINDS) {
  test(`${kind}: cancelling fae closes the model request its turn waits for`, async t => {
    const { server, host, fae, logs } = await startFaeOnLlm(t, kind);
    server.hold();
    await E(host).send('fae', ['a long question'], [], []);
    await server.whenReceived(1);
    await E(host).cancel('controller-for-fae');
    await server.whenAbandoned(1);
    t.is(server.chatRequests.length, 1);
    // Cancelled, not failed: nothing is told, and the message stays.
    t.false(logs.some(line => line.includes('turn-failed')), logs.join('\n'));
    t.true((await keptTexts(fae)).includes('a long question'));
  });

  test(`${kind}: a revision of the message (August) closes the request of the turn it stops`, async t => {
    const { server, host, nextFromFae, logs } = await startFaeOnLlm(t, kind, { dialect: 'aug' });
    server.hold().reply({ text: 'the answer to the final text' });
    await E(host).send('fae', ['…'], [], []);
    await server.whenReceived(1);
    const { number } = ((await E(host).listMessages()) as { number: bigint; strings?: string[] }[]).find(
      m => m.strings?.[0] === '…',
    )!;
    await E(host).editMessage(number, ['Hello, world'], [], [], { done: true });
    await server.whenAbandoned(1);
    t.is(messageText(await nextFromFae()), 'the answer to the final text');
    t.is(server.chatRequests.length, 2);
    t.true(server.chatRequests[1].text.includes('Hello, world'));
    t.true(logs.some(line => line.includes('turn-abandoned message=1')));
    t.false(logs.some(line => line.includes('turn-failed')), logs.join('\n'));
  });

  test(`${kind}: a model answer that stops halfway for LAL_STALL_MS is closed and the sender told`, async t => {
    // Long enough for the request to reach the server however busy the
    // machine (a request given up before it arrived is abandoned unseen).
    const { server, host, nextFromFae } = await startFaeOnLlm(t, kind, { env: { LAL_STALL_MS: '3000' } });
    // The answer starts, then stops halfway.
    server.stallMidBody();
    await E(host).send('fae', ['a question'], [], []);
    t.regex(messageText(await nextFromFae()), /^Sorry, I could not answer your message "a question": the model .* went 3 s without a word in the middle of its answer/);
    await server.whenAbandoned(1);
    t.is(server.abandoned.length, 1);
  });
}

test('cancelling fae during a summary of old turns closes the summary request', async t => {
  const { server, host, nextFromFae, logs } = await startFaeOnLlm(t, 'openai', { env: { FAE_MAX_TRANSCRIPT: '3' } });
  server.reply({ text: 'first answer' }).reply({ text: 'second answer' }).hold();
  for (const text of ['one', 'two']) {
    await E(host).send('fae', [text], [], []);
    await nextFromFae();
  }
  // The third message makes the conversation too long: its turn asks for a summary first.
  await E(host).send('fae', ['three'], [], []);
  await server.whenReceived(3);
  t.true(server.chatRequests[2].text.includes('You keep the memory of a conversation'));
  await E(host).cancel('controller-for-fae');
  await server.whenAbandoned(1);
  t.is(server.chatRequests.length, 3);
  t.false(logs.some(line => line.includes('conversation-compaction-failed')), logs.join('\n'));
});

test('a run-command call that outlives FAE_TOOL_TIMEOUT_MS is stopped and leaves no process', async t => {
  const root = tempDir();
  const pidFile = path.join(root, 'pids');
  // The shell, then a child in the background, and the shell waits for it.
  const command = `echo $$ > ${pidFile}; sleep 1000 & echo $! >> ${pidFile}; wait`;
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'runCommand', arguments: { command } }] },
    { text: 'gave up on it' },
  ]);
  const { host, nextFromFae } = await startFae(t, {
    provider: llm.provider,
    // runCommand asks for the host's approval; that is agent-approvals.test.ts's.
    env: { FAE_TOOL_TIMEOUT_MS: '2000', FAE_APPROVE: 'none' },
    introducedNames: { runner: 'runner' },
    prepare: async (_host, daemon) => {
      await makeToolCaplet(daemon, 'runner', () => makeRunCommand(undefined, undefined, harden({ env: { FAE_CWD: root } })));
    },
  });
  await E(host).send('fae', ['run it'], [], []);
  t.is(messageText(await nextFromFae()), 'gave up on it');
  t.regex(llm.requests[1].messages.at(-1)?.content ?? '', /Tool \\"runCommand\\" did not answer within 2000 ms/);
  const pids = readPids(pidFile);
  t.teardown(() => killSurvivors(pids));
  t.is(pids.length, 2);
  t.deepEqual(await stillRunningAfter(pids), [], 'every process of the command is gone');
});

test('a FaeTool offering cancellation is told when fae stops waiting for its call', async t => {
  const timedOut = makeCancellableTool();
  const llm = makeScriptedProvider([{ toolCalls: [{ name: 'work', arguments: {} }] }, { text: 'done waiting' }]);
  const { host, nextFromFae } = await startFae(t, {
    provider: llm.provider,
    env: { FAE_TOOL_TIMEOUT_MS: '300' },
    introducedNames: { worker: 'worker' },
    prepare: async (_host, daemon) => {
      await makeToolCaplet(daemon, 'worker', () => timedOut.tool);
    },
  });
  await E(host).send('fae', ['work'], [], []);
  t.is(messageText(await nextFromFae()), 'done waiting');
  await timedOut.told;
  t.pass('told on timeout');
});

test('a FaeTool offering cancellation is told when fae is cancelled during its call', async t => {
  const cancelled = makeCancellableTool();
  const llm = makeScriptedProvider([{ toolCalls: [{ name: 'work', arguments: {} }] }, { text: 'never asked' }]);
  const { host, fae, logs } = await startFae(t, {
    provider: llm.provider,
    introducedNames: { worker: 'worker' },
    prepare: async (_host, daemon) => {
      await makeToolCaplet(daemon, 'worker', () => cancelled.tool);
    },
  });
  await E(host).send('fae', ['work'], [], []);
  await cancelled.started;
  await E(host).cancel('controller-for-fae');
  await cancelled.told;
  t.is(llm.requests.length, 1);
  t.false(logs.some(line => line.includes('turn-failed')));
  t.true((await keptTexts(fae)).includes('work'));
});

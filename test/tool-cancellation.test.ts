// How fae stops a tool call it gives up on: executeTool tells a tool that
// offers cancellation (CancellableFaeToolInterface) when the call times out
// or its signal aborts, each call under an id of its own, and calls any
// other tool exactly as before, with its arguments alone.
import test from 'ava';
import { makeExo } from '@endo/exo';
import { E } from '@endo/far';
import { makePromiseKit } from '@endo/promise-kit';
import { executeTool } from '../src/toolbox/tools.js';
import type { FaeTool } from '../src/toolbox/discovered-tools.js';
import { CancellableFaeToolInterface, FaeToolInterface } from '../src/tool-kit/fae-tool-interface.js';
import { makeFaeTool } from '../src/tool-kit/make-fae-tool.js';
import { makeCancellableTool } from './support/tool-caplets.js';

const schema = harden({
  type: 'function',
  function: { name: 'probe', description: 'test tool', parameters: { type: 'object', properties: {} } },
});

const mapOf = (name: string, tool: unknown) => harden(new Map([[name, tool as FaeTool]]));

/**
 * The tool timeout's timer never keeps a process alive, and nothing else
 * here does: without this, a test waiting for a timeout would end with an
 * empty event loop.
 */
const keepAlive = (t: { teardown(fn: () => void): void }) => {
  const timer = setInterval(() => {}, 1000);
  t.teardown(() => clearInterval(timer));
};

test('a call that times out is cancelled at a tool that offers cancellation', async t => {
  keepAlive(t);
  const { tool, told } = makeCancellableTool();
  await t.throwsAsync(executeTool('work', {}, mapOf('work', tool), { timeoutMs: 100 }), {
    message: 'Tool "work" did not answer within 100 ms',
  });
  await told;
  t.pass();
});

test('an aborted signal gives the call up at once, with its reason, and the tool is told', async t => {
  const { tool, started, told } = makeCancellableTool();
  const controller = new AbortController();
  const call = executeTool('work', {}, mapOf('work', tool), { timeoutMs: 60_000, signal: controller.signal });
  await started;
  const reason = Error('the turn was cancelled');
  controller.abort(reason);
  t.is(await t.throwsAsync(call), reason);
  await told;
  // Nothing starts once the signal has aborted.
  await t.throwsAsync(executeTool('work', {}, mapOf('work', tool), { signal: controller.signal }), {
    is: reason,
  });
});

test('each call of a cancellable tool has an id of its own, and cancel names that call only', async t => {
  keepAlive(t);
  const ids: string[] = [];
  const cancelled: string[] = [];
  const waiting = new Map<string, (value: string) => void>();
  const tool = makeExo('Recorder', CancellableFaeToolInterface, {
    schema: () => schema,
    execute: async (_args: Record<string, unknown>, callId?: string) => {
      ids.push(String(callId));
      return new Promise<string>(resolve => waiting.set(String(callId), resolve));
    },
    cancel: (callId: string) => {
      cancelled.push(callId);
      waiting.get(callId)?.('stopped');
    },
    help: () => 'records its calls',
  });
  const toolMap = mapOf('probe', tool);
  const slow = executeTool('probe', {}, toolMap, { timeoutMs: 100 });
  const quick = executeTool('probe', {}, toolMap, { timeoutMs: 60_000 });
  while (ids.length < 2) await new Promise(resolve => setTimeout(resolve, 10));
  waiting.get(ids[1])?.('quick answer');
  t.is(await quick, 'quick answer');
  await t.throwsAsync(slow, { message: /did not answer within 100 ms/ });
  while (cancelled.length < 1) await new Promise(resolve => setTimeout(resolve, 10));
  t.not(ids[0], ids[1]);
  t.regex(ids[0], /^call-[0-9a-f-]{36}$/);
  t.deepEqual(cancelled, [ids[0]]);
});

test('a tool without cancel gets its arguments alone, as its guard demands', async t => {
  keepAlive(t);
  const strict = makeExo('Strict', FaeToolInterface, {
    schema: () => schema,
    execute: async (args: Record<string, unknown>) => `got ${JSON.stringify(args)}`,
    help: () => 'refuses a second argument',
  });
  t.is(await executeTool('probe', { a: 1 }, mapOf('probe', strict), { timeoutMs: 1000 }), 'got {"a":1}');
  // Not even an exo: no __getMethodNames__ to ask.
  const plain = harden({ execute: async () => 'plain answer', schema: () => schema, help: () => '' });
  t.is(await executeTool('probe', {}, mapOf('probe', plain)), 'plain answer');
  // A hung one is given up on as before, and nothing is sent to it.
  const hung = makeExo('Hung', FaeToolInterface, {
    schema: () => schema,
    execute: () => new Promise<string>(() => {}),
    help: () => 'never answers',
  });
  await t.throwsAsync(executeTool('probe', {}, mapOf('probe', hung), { timeoutMs: 50 }), {
    message: 'Tool "probe" did not answer within 50 ms',
  });
});

test('makeFaeTool: cancelling a finished call or an unknown id does nothing; a running id is not reused', async t => {
  const gate = makePromiseKit<void>();
  const signals: AbortSignal[] = [];
  const tool = makeFaeTool({
    name: 'gated',
    description: 'Waits for the gate.',
    parameters: {},
    required: [],
    help: 'test tool',
    cancellable: true,
    execute: async (_args, { signal }) => {
      signals.push(signal);
      await gate.promise;
      return signal.aborted ? 'cancelled' : 'done';
    },
  });
  const first = E(tool).execute({}, 'one');
  await t.throwsAsync(E(tool).execute({}, 'one'), {
    message: 'gated: a call with the id "one" is already running; give each call an id of its own',
  });
  await E(tool).cancel('unknown');
  t.false(signals[0].aborted);
  gate.resolve();
  t.is(await first, 'done');
  await E(tool).cancel('one');
  t.false(signals[0].aborted);
  // Without an id the call cannot be cancelled, and runs as before.
  t.is(await E(tool).execute({}), 'done');
});

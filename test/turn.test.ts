// The ReAct turn on its own: what it asks the model, and when it stops.
import test from 'ava';
import { runTurn } from '../src/agent/turn/turn.js';
import type { TurnDependencies } from '../src/agent/turn/turn.js';
import { silentLogger } from '../src/logging/log.js';
import { makeCancellation, type Cancellation } from '../src/agent/turn/cancellation.js';
import type { ChatMessage } from '../providers/types.js';
import type { DiscoveredTools } from '../src/toolbox/discovered-tools.js';
import { makeScriptedProvider } from './support/scripted-provider.js';
import { makeFaeTool } from '../src/tool-kit/make-fae-tool.js';
import { makeCancellableTool } from './support/tool-caplets.js';

const noTools: DiscoveredTools = harden({ schemas: [], toolMap: new Map(), origins: new Map() });

const dependencies = (
  provider: TurnDependencies['provider'],
  cancelled: Cancellation = makeCancellation(new Promise(() => {})),
): TurnDependencies => ({
  provider,
  discover: async () => noTools,
  limits: { maxIterations: 5, toolTimeoutMs: 1000, parallelTools: true },
  cancelled,
  makeCallId: (() => {
    let n = 0;
    return () => `id${(n += 1)}`;
  })(),
  logger: silentLogger,
});

test('a turn that starts after cancellation asks the model nothing', async t => {
  const llm = makeScriptedProvider([{ text: 'never' }]);
  const transcript: ChatMessage[] = [{ role: 'user', content: 'hi' }];
  const outcome = await runTurn(transcript, noTools, dependencies(llm.provider, { promise: Promise.resolve(Error('gone')), isCancelled: () => true }));
  t.is(outcome.kind, 'cancelled');
  t.is(llm.requests.length, 0);
  t.is(transcript.length, 1);
});

test('a cancellation that comes with the model answer runs none of its tool calls and asks nothing more', async t => {
  let cancel: (reason: Error) => void = () => {};
  const cancelled = new Promise<Error>(resolve => {
    cancel = resolve;
  });
  const llm = makeScriptedProvider([
    () => {
      cancel(Error('gone'));
      return { toolCalls: [{ name: 'note', arguments: {} }] };
    },
    { text: 'never' },
  ]);
  const ran: string[] = [];
  const note = makeFaeTool({
    name: 'note',
    description: 'Notes that it ran.',
    parameters: {},
    required: [],
    help: 'test tool',
    execute: () => {
      ran.push('note');
      return 'noted';
    },
  });
  const tools: DiscoveredTools = harden({ schemas: [], toolMap: new Map([['note', note]]), origins: new Map() });
  const transcript: ChatMessage[] = [{ role: 'user', content: 'hi' }];
  const outcome = await runTurn(transcript, tools, dependencies(llm.provider, makeCancellation(cancelled)));
  t.is(outcome.kind, 'cancelled');
  t.is(llm.requests.length, 1);
  t.deepEqual(ran, []);
  // Nothing of the round given up is kept: never a call without its result.
  t.deepEqual(transcript.map(m => m.role), ['user']);
});

test('a plain answer ends the turn and is kept in the transcript', async t => {
  const llm = makeScriptedProvider([{ text: '<think>x</think>Done.' }]);
  const transcript: ChatMessage[] = [{ role: 'user', content: 'hi' }];
  const outcome = await runTurn(transcript, noTools, dependencies(llm.provider));
  t.like(outcome, { kind: 'answered', content: 'Done.', iterations: 1, cutOff: false });
  t.deepEqual(transcript.at(-1), { role: 'assistant', content: 'Done.' });
});

test('cancelling a turn aborts the model call it waits for', async t => {
  let cancel: (reason: Error) => void = () => {};
  const cancelled = new Promise<Error>(resolve => {
    cancel = resolve;
  });
  const llm = makeScriptedProvider([{ hang: true }]);
  const transcript: ChatMessage[] = [{ role: 'user', content: 'hi' }];
  const outcome = runTurn(transcript, noTools, dependencies(llm.provider, makeCancellation(cancelled)));
  await llm.whenCalled(1);
  cancel(Error('gone'));
  t.is((await outcome).kind, 'cancelled');
  t.deepEqual(llm.aborted, [1]);
  t.deepEqual(transcript.map(m => m.role), ['user']);
});

test('cancelling a turn while a tool runs tells a tool that offers cancellation, and ends the turn at once', async t => {
  let cancel: (reason: Error) => void = () => {};
  const cancelled = new Promise<Error>(resolve => {
    cancel = resolve;
  });
  const llm = makeScriptedProvider([{ toolCalls: [{ name: 'work', arguments: {} }] }, { text: 'never' }]);
  const { tool, started, told } = makeCancellableTool();
  const tools: DiscoveredTools = harden({ schemas: [], toolMap: new Map([['work', tool]]), origins: new Map() });
  const deps = dependencies(llm.provider, makeCancellation(cancelled));
  // A tool timeout far away: the turn ends because it was cancelled, not because the tool timed out.
  const outcome = runTurn([{ role: 'user', content: 'hi' }], tools, { ...deps, limits: { ...deps.limits, toolTimeoutMs: 10 * 60_000 } });
  await started;
  cancel(Error('gone'));
  t.is((await outcome).kind, 'cancelled');
  await told;
  t.is(llm.requests.length, 1);
});

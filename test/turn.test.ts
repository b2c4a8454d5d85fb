// The ReAct turn on its own: what it asks the model, and when it stops.
import test from 'ava';
import { runTurn } from '../src/agent/turn.js';
import type { TurnDependencies } from '../src/agent/turn.js';
import { silentLogger } from '../src/logging/log.js';
import { makeCancellation, type Cancellation } from '../src/agent/cancellation.js';
import type { ChatMessage } from '../providers/types.js';
import type { DiscoveredTools } from '../src/toolbox/tools.js';
import { makeScriptedProvider } from './support/scripted-provider.js';

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

test('cancellation between tool rounds stops before the next model call', async t => {
  let cancel: (reason: Error) => void = () => {};
  const cancelled = new Promise<Error>(resolve => {
    cancel = resolve;
  });
  const llm = makeScriptedProvider([
    () => {
      cancel(Error('gone'));
      return { toolCalls: [{ name: 'missing', arguments: {} }] };
    },
    { text: 'never' },
  ]);
  const transcript: ChatMessage[] = [{ role: 'user', content: 'hi' }];
  const outcome = await runTurn(transcript, noTools, dependencies(llm.provider, makeCancellation(cancelled)));
  t.is(outcome.kind, 'cancelled');
  t.is(llm.requests.length, 1);
  // The round that ran is recorded whole: the call and its result.
  t.deepEqual(transcript.map(m => m.role), ['user', 'assistant', 'tool']);
});

test('a plain answer ends the turn and is kept in the transcript', async t => {
  const llm = makeScriptedProvider([{ text: '<think>x</think>Done.' }]);
  const transcript: ChatMessage[] = [{ role: 'user', content: 'hi' }];
  const outcome = await runTurn(transcript, noTools, dependencies(llm.provider));
  t.like(outcome, { kind: 'answered', content: 'Done.', iterations: 1, cutOff: false });
  t.deepEqual(transcript.at(-1), { role: 'assistant', content: 'Done.' });
});

// Any capability is a tool (issue 38), through the local daemon in every
// dialect: an exo that is not a FaeTool is offered one tool per method its
// guard declares, its arguments decoded from JSON (big integers from text,
// capabilities by pet name), its guard judging the call; a capability it
// answers is kept under a fresh name; its calls ask the host unless the
// policy marks them read-only; a method without a guard takes a list.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { E, Far } from '@endo/far';
import { makeExo } from '@endo/exo';
import { M } from '@endo/patterns';
import { startFaeInDaemon, type FaeHarnessOptions } from './support/fae-harness.js';
import { lastMessageNumber, lastToolResults, makeScriptedProvider, type ScriptedReply } from './support/scripted-provider.js';
import { messageText } from './support/daemon.js';
import { makeShippedTool, makeToolCaplet } from './support/tool-caplets.js';
import { answerApproval, makeApprovalReader } from './support/approvals.js';

const WAIT_MS = 30_000;

const CounterInterface = M.interface('Counter', {
  increment: M.call().optional(M.nat()).returns(M.nat()),
  get: M.call().returns(M.nat()),
  label: M.call(M.string(), M.or('short', 'long')).returns(M.string()),
  echo: M.call(M.remotable('Capability')).returns(M.remotable()),
  fresh: M.call().returns(M.remotable()),
  broken: M.call().returns(M.string()),
  stall: M.call().returns(M.promise()),
  help: M.call().optional(M.string()).returns(M.string()),
});

const makeCounter = () => {
  let count = 0n;
  return makeExo('Counter', CounterInterface, {
    increment(by = 1n) {
      count += by;
      return count;
    },
    get: () => count,
    label: (text: string, size: string) => (size === 'short' ? text.slice(0, 3) : text),
    echo: (capability: unknown) => capability,
    // Made here, unknown to the daemon: it cannot be kept under a name.
    fresh: () => Far('Fresh', { hi: () => 'hi' }),
    broken: () => {
      throw Error('the counter is broken today');
    },
    stall: () => new Promise(() => {}),
    help: (method?: string) => (method === 'increment' ? 'Adds to the count (1 unless told) and answers the new count.' : 'A counter.'),
  });
};



/**
 * fae with the shipped greet tool in its tools/, to which the host mails
 * `counter` (and what `extra` makes, named in `mailed`), which the model
 * adopts into tools/ as it would any tool; then `calls`, and an answer with
 * the last round's results. `requests` counts from after the adoption.
 */
const startWithCounter = async (
  t: ExecutionContext,
  calls: readonly ScriptedReply[],
  { env = {}, extra = {}, mailed = [] }: { env?: Record<string, string>; extra?: Partial<FaeHarnessOptions>; mailed?: readonly string[] } = {},
) => {
  t.timeout(120_000);
  const adopted = ['counter', ...mailed];
  const llm = makeScriptedProvider([
    request => ({
      toolCalls: adopted.map(name => ({ name: 'adoptTool', arguments: { messageNumber: lastMessageNumber(request), edgeName: name, toolName: name } })),
    }),
    { text: 'adopted' },
    ...calls,
    request => ({ text: lastToolResults(request).join('\n---\n') }),
  ]);
  const started = await startFaeInDaemon({
    provider: llm.provider,
    env: { FAE_APPROVE: 'readonly:counter', ...env },
    ...extra,
    introducedNames: { greeter: 'greeter' },
    prepare: async (host, daemon) => {
      await makeToolCaplet(daemon, 'counter', makeCounter);
      await makeShippedTool(host, 'greet', 'greeter');
      await extra.prepare?.(host, daemon);
    },
  });
  t.teardown(() => started.daemon.stop());
  await started.nextFromFae(WAIT_MS); // ready
  const ask = async (text: string) => {
    await E(started.host).send('fae', [text], [], []);
    return messageText(await started.nextFromFae(WAIT_MS));
  };
  await E(started.host).send('fae', ['Adopt ', ...adopted.slice(1).map(() => ' '), ''], adopted, adopted);
  t.is(messageText(await started.nextFromFae(WAIT_MS)), 'adopted');
  /** The model's `index`th request since the adoption. */
  const request = (index: number) => llm.requests[index + 2];
  return { ...started, request, ask };
};

test('each method a guard declares is a tool, described from help, its arguments from its patterns', async t => {
  const world = await startWithCounter(t, [{ text: 'ok' }]);
  await world.ask('hi');
  const request = world.request(0);
  const offered = request.tools.filter(tool => tool.function.name.startsWith('counter__'));
  t.deepEqual(
    offered.map(tool => tool.function.name),
    ['counter__broken', 'counter__echo', 'counter__fresh', 'counter__get', 'counter__increment', 'counter__label', 'counter__stall'],
  );
  const increment = offered.find(tool => tool.function.name === 'counter__increment')?.function;
  t.regex(increment?.description ?? '', /^Calls increment of the capability tools\/counter \(Counter\)\. Adds to the count/);
  t.deepEqual(increment?.parameters, {
    type: 'object',
    properties: {
      arg1: {
        type: 'string',
        pattern: '^\\+?[0-9]+$',
        description: 'a natural number (0 or more, a big integer), written as text such as "+42" or "-7"',
      },
    },
    required: [],
  });
  const label = offered.find(tool => tool.function.name === 'counter__label')?.function;
  t.deepEqual(label?.parameters, {
    type: 'object',
    properties: { arg1: { type: 'string' }, arg2: { enum: ['short', 'long'] } },
    required: ['arg1', 'arg2'],
  });
  // A FaeTool beside it is offered as before, by its schema name.
  t.true(request.toolNames.includes('greet'));
});

test('a call decodes big integers from text, and the answer keeps them', async t => {
  const world = await startWithCounter(t, [
    { toolCalls: [{ name: 'counter__increment', arguments: { arg1: '+5' } }] },
    { toolCalls: [{ name: 'counter__increment', arguments: {} }, { name: 'counter__label', arguments: { arg1: 'counter', arg2: 'short' } }] },
  ]);
  await world.ask('count');
  t.deepEqual(lastToolResults(world.request(1)), ['5n']);
  t.deepEqual(lastToolResults(world.request(2)), ['6n', 'cou']);
});

test("the capability's own guard judges the call, and a throw or a missing argument reaches the model", async t => {
  const world = await startWithCounter(t, [
    {
      toolCalls: [
        { name: 'counter__label', arguments: { arg1: 'x', arg2: 'medium' } },
        { name: 'counter__label', arguments: { arg1: 'x' } },
        { name: 'counter__broken', arguments: {} },
        { name: 'counter__increment', arguments: { arg1: 'five' } },
        { name: 'counter__get', arguments: { arg9: 1 } },
      ],
    },
  ]);
  await world.ask('try');
  const [guard, missing, thrown, badNumber, unknown] = lastToolResults(world.request(1));
  // Checked by the guard's own patterns before the call, so the model reads what was wrong.
  t.regex(guard, /arg2 is medium, which the method refuses: it must be \{\\"enum\\":\[\\"short\\",\\"long\\"\]\}/);
  t.true(missing.includes('missing \\"arg2\\"'), missing);
  t.regex(thrown, /the counter is broken today/);
  t.regex(badNumber, /arg1 must be a big integer written as text such as \\?"\+42\\?", not \\?"five\\?"/);
  t.true(unknown.includes('unknown argument \\"arg9\\"; it takes no arguments'), unknown);
});

test('a capability goes in by its pet name and comes out under a fresh one; one the daemon cannot store is said so', async t => {
  const world = await startWithCounter(t, [
    { toolCalls: [{ name: 'counter__echo', arguments: { arg1: 'tools/greeter' } }] },
    { toolCalls: [{ name: 'counter__fresh', arguments: {} }, { name: 'counter__echo', arguments: { arg1: 'no-such-thing' } }] },
  ]);
  await world.ask('echo');
  const [echoed] = lastToolResults(world.request(1));
  t.regex(echoed, /now in your directory as counter-echo-1/);
  // The very tool went in and came back: it answers as the greeter does.
  t.is((await E(E(world.fae).lookup('counter-echo-1')).schema()).function.name, 'greet');
  const [fresh, missing] = lastToolResults(world.request(2));
  t.regex(fresh, /A capability it returned could not be kept: the daemon cannot store it under a name/);
  t.false(await E(world.fae).has('counter-fresh-1'), 'no name is left to nothing');
  t.regex(missing, /no-such-thing/);
});

test('a method that hangs is bounded by the tool timeout', async t => {
  const world = await startWithCounter(t, [{ toolCalls: [{ name: 'counter__stall', arguments: {} }] }], { env: { FAE_TOOL_TIMEOUT_MS: '200' } });
  await world.ask('stall');
  t.regex(lastToolResults(world.request(1))[0], /did not answer within 200 ms/);
});

test("a method of a capability asks the host unless the policy marks it read-only, and runs only once approved", async t => {
  const world = await startWithCounter(t, [{ toolCalls: [{ name: 'counter__increment', arguments: { arg1: '+2' } }] }, { toolCalls: [{ name: 'counter__get', arguments: {} }] }], {
    env: { FAE_APPROVE: 'readonly:counter.get' },
  });
  await E(world.host).send('fae', ['add two'], [], []);
  const reader = makeApprovalReader();
  let request;
  while (request === undefined) request = reader.request(await world.nextFromFae(WAIT_MS));
  t.regex(request.text, /^Approval needed: call `counter\.increment` \(arg1: \+2\) for you\?/);
  t.regex(request.text, /the method increment of the capability tools\/counter/);
  await answerApproval(world.host, request, 'approve');
  let answer;
  while (answer === undefined) {
    const message = await world.nextFromFae(WAIT_MS);
    if (reader.request(message) === undefined && !reader.skip(message)) answer = messageText(message);
  }
  // get, marked read-only, ran without asking.
  t.is(answer, '2n');
});

test('a method without a guard takes its arguments as a list', async t => {
  const world = await startWithCounter(t, [{ toolCalls: [{ name: 'plain__add', arguments: { args: [2, 3] } }] }], {
    env: { FAE_APPROVE: 'readonly:plain' },
    mailed: ['plain'],
    extra: {
      prepare: async (_host, daemon) => {
        await makeToolCaplet(daemon, 'plain', () => Far('Plain', { add: (a: number, b: number) => a + b }));
      },
    },
  });
  t.is(await world.ask('add'), '5');
  const add = world.request(0).tools.find(tool => tool.function.name === 'plain__add');
  t.regex(add?.function.description ?? '', /^Calls add of the capability tools\/plain\./);
});

test('removing the capability takes its methods off the list before the next model call', async t => {
  const world = await startWithCounter(t, [{ toolCalls: [{ name: 'remove', arguments: { petName: 'tools/counter' } }] }]);
  await world.ask('remove it');
  t.true(world.request(0).toolNames.includes('counter__get'));
  t.false(world.request(1).toolNames.some(name => name.startsWith('counter__')));
});

test('"always" grants one method of that capability: the next call of it runs unasked, another method still asks', async t => {
  const world = await startWithCounter(
    t,
    [
      { toolCalls: [{ name: 'counter__increment', arguments: { arg1: '+1' } }] },
      { text: 'first' },
      { toolCalls: [{ name: 'counter__increment', arguments: { arg1: '+1' } }] },
      { text: 'second' },
      { toolCalls: [{ name: 'counter__get', arguments: {} }] },
    ],
    { env: { FAE_APPROVE: 'default' } },
  );
  const reader = makeApprovalReader();
  const next = async () => {
    for (;;) {
      const message = await world.nextFromFae(WAIT_MS);
      const request = reader.request(message);
      if (request !== undefined) return { request };
      if (!reader.skip(message)) return { text: messageText(message) };
    }
  };
  await E(world.host).send('fae', ['add one'], [], []);
  const asked = await next();
  if (asked.request === undefined) return t.fail(asked.text);
  await answerApproval(world.host, asked.request, 'always');
  t.deepEqual(await next(), { text: 'first' });
  await E(world.host).send('fae', ['add one more'], [], []);
  t.deepEqual(await next(), { text: 'second' }, 'no second request');
  await E(world.host).send('fae', ['how many?'], [], []);
  const again = await next();
  t.regex(again.request?.text ?? '', /^Approval needed: call `counter\.get` for you\?/);
});

test('a method with a rest guard takes its further arguments as one list, checked whole', async t => {
  const world = await startWithCounter(
    t,
    [
      {
        toolCalls: [
          { name: 'joiner__join', arguments: { arg1: '-', rest: ['a', 'b', 'c'] } },
          { name: 'joiner__join', arguments: { arg1: '+' } },
          { name: 'joiner__join', arguments: { arg1: '-', rest: ['a', 7] } },
        ],
      },
    ],
    {
      env: { FAE_APPROVE: 'readonly:joiner' },
      mailed: ['joiner'],
      extra: {
        prepare: async (_host, daemon) => {
          await makeToolCaplet(daemon, 'joiner', () =>
            makeExo('Joiner', M.interface('Joiner', { join: M.call(M.string()).rest(M.arrayOf(M.string())).returns(M.string()) }), {
              join: (separator: string, ...parts: string[]) => parts.join(separator),
            }),
          );
        },
      },
    },
  );
  await world.ask('join');
  const join = world.request(0).tools.find(tool => tool.function.name === 'joiner__join');
  t.deepEqual(join?.function.parameters.properties, {
    arg1: { type: 'string' },
    rest: { type: 'array', items: { type: 'string' }, description: 'The further arguments, as one list, in order.' },
  });
  const [joined, none, refused] = lastToolResults(world.request(1));
  t.is(joined, 'a-b-c');
  t.is(none, '');
  t.true(refused.includes('rest is [\\"a\\",7], which the method refuses'), refused);
});

test('a call its guard would refuse is refused before the host is asked', async t => {
  const world = await startWithCounter(t, [{ toolCalls: [{ name: 'counter__increment', arguments: { arg1: 'many' } }] }], {
    env: { FAE_APPROVE: 'default' },
  });
  t.regex(await world.ask('add many'), /arg1 must be a big integer/);
});

test('an approved call runs with the capability the host was shown, though its name is bound anew meanwhile', async t => {
  const world = await startWithCounter(t, [{ toolCalls: [{ name: 'counter__echo', arguments: { arg1: 'gadget' } }] }], {
    env: { FAE_APPROVE: 'default' },
  });
  await E(world.fae).copy(['tools', 'greeter'], ['gadget']);
  await E(world.host).send('fae', ['echo the gadget'], [], []);
  const reader = makeApprovalReader();
  let request;
  while (request === undefined) request = reader.request(await world.nextFromFae(WAIT_MS));
  t.true(request.text.includes('- arg1: `gadget`'), request.text);
  // While the host reads, the name comes to hold another capability.
  await E(world.fae).remove('gadget');
  await E(world.fae).copy(['tools', 'counter'], ['gadget']);
  await answerApproval(world.host, request, 'approve');
  let answer;
  while (answer === undefined) {
    const message = await world.nextFromFae(WAIT_MS);
    if (reader.request(message) === undefined && !reader.skip(message)) answer = messageText(message);
  }
  t.regex(answer, /now in your directory as counter-echo-1/);
  // The greeter went in, as shown, not what the name holds now.
  t.is((await E(E(world.fae).lookup('counter-echo-1')).schema()).function.name, 'greet');
});

test('the host reads which argument hands the call a capability fae holds', async t => {
  const world = await startWithCounter(t, [{ toolCalls: [{ name: 'counter__echo', arguments: { arg1: 'tools/greeter' } }] }], {
    env: { FAE_APPROVE: 'default' },
  });
  await E(world.host).send('fae', ['echo the greeter'], [], []);
  const reader = makeApprovalReader();
  let request;
  while (request === undefined) request = reader.request(await world.nextFromFae(WAIT_MS));
  t.true(request.text.includes('- arg1: `tools/greeter` (the capability fae holds by this name, handed to the call)'), request.text);
});

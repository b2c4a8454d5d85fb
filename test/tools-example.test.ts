// The example tool caplets (greet, math, timestamp) and the argument checks
// every FaeTool gets from makeFaeTool, exercised through E() as the agent
// calls them.
import test from 'ava';
import { E } from '@endo/far';
import { make as makeGreet } from '../tools/greet.js';
import { make as makeMath } from '../tools/math.js';
import { make as makeTimestamp } from '../tools/timestamp.js';
import { type FunctionSchema, makeFaeTool } from '../src/tool-kit/make-fae-tool.js';

const env = harden({ env: {} });

test('each example tool answers its upstream schema name and parameters', async t => {
  const expected = [
    [makeGreet, 'greet', ['name', 'language'], ['name']],
    [makeMath, 'math', ['operation', 'a', 'b'], ['operation', 'a', 'b']],
    [makeTimestamp, 'timestamp', ['timezone'], []],
  ] as const;
  for (const [make, name, properties, required] of expected) {
    const tool = make(undefined, undefined, env);
    const schema = (await E(tool).schema()) as FunctionSchema;
    t.is(schema.type, 'function');
    t.is(schema.function.name, name);
    t.deepEqual(Object.keys(schema.function.parameters.properties), [...properties]);
    t.deepEqual(schema.function.parameters.required, [...required]);
    t.true(Object.isFrozen(schema));
    t.regex(await E(tool).help(), /\w/);
  }
});

test('greet greets in the asked language, English by default', async t => {
  const greet = makeGreet(undefined, undefined, env);
  t.is(await E(greet).execute({ name: 'Ada' }), 'Hello, Ada!');
  t.is(await E(greet).execute({ name: 'Ada', language: 'french' }), 'Bonjour, Ada!');
  // Models send null for an optional parameter they leave out.
  t.is(await E(greet).execute({ name: 'Ada', language: null }), 'Hello, Ada!');
});

test('greet refuses a missing name, a wrong type and an unknown language', async t => {
  const greet = makeGreet(undefined, undefined, env);
  await t.throwsAsync(E(greet).execute({}), {
    message: 'greet: argument "name" is required (a string: The name of the person to greet.)',
  });
  await t.throwsAsync(E(greet).execute({ name: 42 }), {
    message: 'greet: argument "name" must be a string, not 42',
  });
  await t.throwsAsync(E(greet).execute({ name: 'Ada', language: 'klingon' }), {
    message:
      'greet: argument "language" must be one of ["english","spanish","french","german","japanese"], not "klingon"',
  });
  await t.throwsAsync(E(greet).execute({ name: '  ' }), {
    message: 'greet: "name" is empty; give the name of the person to greet',
  });
});

test('an argument the tool does not declare is refused, naming the accepted ones', async t => {
  const greet = makeGreet(undefined, undefined, env);
  await t.throwsAsync(E(greet).execute({ name: 'Ada', lang: 'french' }), {
    message: 'greet: unknown argument "lang"; it accepts "name", "language"',
  });
  const timestamp = makeTimestamp(undefined, undefined, env);
  await t.throwsAsync(E(timestamp).execute({ tz: 'UTC' }), {
    message: 'timestamp: unknown argument "tz"; it accepts "timezone"',
  });
});

test('math does each operation', async t => {
  const math = makeMath(undefined, undefined, env);
  const cases = [
    ['add', 2, 3, '5'],
    ['subtract', 2, 3, '-1'],
    ['multiply', 2.5, 4, '10'],
    ['divide', 7, 2, '3.5'],
    ['modulo', 7, 3, '1'],
    ['power', 2, 10, '1024'],
  ] as const;
  for (const [operation, a, b, result] of cases) {
    t.is(await E(math).execute({ operation, a, b }), result, operation);
  }
});

test('math refuses an unknown operation, division by zero, non-numbers and overflow', async t => {
  const math = makeMath(undefined, undefined, env);
  await t.throwsAsync(E(math).execute({ operation: 'sqrt', a: 4, b: 0 }), {
    message:
      'math: argument "operation" must be one of ["add","subtract","multiply","divide","modulo","power"], not "sqrt"',
  });
  await t.throwsAsync(E(math).execute({ operation: 'divide', a: 1, b: 0 }), {
    message: 'math: cannot divide 1 by zero; b must not be 0',
  });
  await t.throwsAsync(E(math).execute({ operation: 'modulo', a: 1, b: 0 }), {
    message: 'math: cannot modulo 1 by zero; b must not be 0',
  });
  await t.throwsAsync(E(math).execute({ operation: 'add', a: '1', b: 2 }), {
    message: 'math: argument "a" must be a number, not "1"',
  });
  await t.throwsAsync(E(math).execute({ operation: 'add', a: 1 }), {
    message: 'math: argument "b" is required (a number: Second operand.)',
  });
  await t.throwsAsync(E(math).execute({ operation: 'power', a: 10, b: 400 }), {
    message: /^math: 10 power 400 has no finite result \(Infinity\)/,
  });
});

test('timestamp tells the time in UTC, in a given zone, and refuses a bad zone', async t => {
  const timestamp = makeTimestamp(undefined, undefined, env);
  const before = Date.now();
  const inTokyo = await E(timestamp).execute({ timezone: 'Asia/Tokyo' });
  t.regex(inTokyo, /\(Asia\/Tokyo\); UTC \d{4}-\d\d-\d\dT/);
  t.regex(inTokyo, /GMT\+9/);
  const iso = /UTC (\S+)$/.exec(inTokyo)?.[1] ?? '';
  const when = Date.parse(iso);
  t.true(when >= before - 1000 && when <= Date.now() + 1000);
  t.regex(await E(timestamp).execute({}), /; UTC \d{4}-/);
  await t.throwsAsync(E(timestamp).execute({ timezone: 'Mars/Olympus' }), {
    message:
      'timestamp: unknown timezone "Mars/Olympus"; use an IANA name such as "UTC", "Europe/Paris" or "America/New_York"',
  });
});

test('makeFaeTool checks integers and booleans, and refuses a non-string result', async t => {
  const tool = makeFaeTool({
    name: 'probe',
    description: 'test tool',
    parameters: {
      count: { type: 'integer', description: 'how many' },
      loud: { type: 'boolean', description: 'shout' },
    },
    required: ['count'],
    help: 'a probe',
    execute: ({ count, loud }) =>
      (count === 0 ? 0 : `${count}${loud ? '!' : ''}`) as unknown as string,
  });
  t.is(await E(tool).execute({ count: 3, loud: true }), '3!');
  await t.throwsAsync(E(tool).execute({ count: 1.5 }), {
    message: 'probe: argument "count" must be an integer, not 1.5',
  });
  await t.throwsAsync(E(tool).execute({ count: 1, loud: 'yes' }), {
    message: 'probe: argument "loud" must be a boolean, not "yes"',
  });
  await t.throwsAsync(E(tool).execute({ count: 0 }), {
    message: 'probe: returned "number" instead of a string',
  });
  t.is(String(tool), '[object Alleged: ProbeTool]');
});

test('makeFaeTool refuses a required parameter it does not declare', t => {
  t.throws(
    () =>
      makeFaeTool({
        name: 'broken',
        description: 'x',
        parameters: {},
        required: ['missing' as never],
        help: 'x',
        execute: () => '',
      }),
    { message: 'broken: requires "missing", which is not among its parameters' },
  );
});

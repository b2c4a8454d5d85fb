// Patterns as the JSON Schema a model is shown, and its JSON arguments
// decoded back into what the pattern accepts (issue 38): every kind of
// pattern, and those JSON cannot express described rather than dropped.
import test from 'ava';
import { Far } from '@endo/far';
import { M, matches } from '@endo/patterns';
import { patternSchema } from '../src/toolbox/capabilities/pattern-schema.js';
import { decodeArgument } from '../src/toolbox/capabilities/pattern-arguments.js';

test('scalars, literals and bounds', t => {
  t.deepEqual(patternSchema(M.string()), { type: 'string' });
  t.deepEqual(patternSchema(M.string({ stringLengthLimit: 10 })), { type: 'string', maxLength: 10 });
  t.deepEqual(patternSchema(M.number()), { type: 'number' });
  t.deepEqual(patternSchema(M.boolean()), { type: 'boolean' });
  t.deepEqual(patternSchema(M.null()), { type: 'null' });
  t.deepEqual(patternSchema(M.bigint()), { type: 'string', pattern: '^[+-]?[0-9]+$', description: 'a big integer, written as text such as "+42" or "-7"' });
  t.is(patternSchema(M.nat()).pattern, '^\\+?[0-9]+$');
  t.deepEqual(patternSchema('exact'), { const: 'exact' });
  t.deepEqual(patternSchema(7), { const: 7 });
  t.deepEqual(patternSchema(true), { const: true });
  t.deepEqual(patternSchema(5n), { type: 'string', const: '+5' });
  t.deepEqual(patternSchema(M.gte(3)), { type: 'number', minimum: 3 });
  t.deepEqual(patternSchema(M.lt(10)), { type: 'number', exclusiveMaximum: 10 });
  t.regex(String(patternSchema(M.lte(10n)).description), /at most 10/);
});

test('containers: records, split records, arrays, tuples and maps of records', t => {
  t.deepEqual(patternSchema(harden({ name: M.string(), age: M.number() })), {
    type: 'object',
    properties: { name: { type: 'string' }, age: { type: 'number' } },
    required: ['name', 'age'],
    additionalProperties: false,
  });
  t.deepEqual(patternSchema(M.splitRecord({ a: M.string() }, { b: M.boolean() })), {
    type: 'object',
    properties: { a: { type: 'string' }, b: { type: 'boolean' } },
    required: ['a'],
    additionalProperties: false,
  });
  t.deepEqual(patternSchema(M.splitRecord({}, {}, M.recordOf(M.string(), M.number()))).additionalProperties, {
    type: 'object',
    additionalProperties: { type: 'number' },
  });
  t.deepEqual(patternSchema(M.arrayOf(M.string())), { type: 'array', items: { type: 'string' } });
  t.deepEqual(patternSchema(M.recordOf(M.string(), M.nat())).additionalProperties, patternSchema(M.nat()));
  t.deepEqual(patternSchema(harden([M.string(), M.number()])), {
    type: 'array',
    prefixItems: [{ type: 'string' }, { type: 'number' }],
    minItems: 2,
    maxItems: 2,
  });
  const split = patternSchema(M.splitArray([M.string()], [M.number()]));
  t.is(split.minItems, 1);
  t.is(split.maxItems, 2);
});

test('alternatives, capabilities, and what JSON cannot express is described', t => {
  t.deepEqual(patternSchema(M.or('a', 'b')), { enum: ['a', 'b'] });
  t.deepEqual(patternSchema(M.or(M.string(), M.number())), { anyOf: [{ type: 'string' }, { type: 'number' }] });
  t.deepEqual(patternSchema(M.and(M.string(), M.string())), { allOf: [{ type: 'string' }, { type: 'string' }] });
  t.regex(String(patternSchema(M.remotable('Counter')).description), /pet name.*\(a Counter\)/);
  t.regex(String(patternSchema(M.any()).description), /any value/);
  for (const pattern of [M.promise(), M.set(), M.bag(), M.map(), M.symbol(), M.error()]) {
    const schema = patternSchema(pattern);
    t.is(schema.type, undefined);
    t.regex(String(schema.description), /cannot be written in JSON/);
  }
  t.regex(String(patternSchema(M.undefined()).description), /left out/);
});

test('arguments are decoded as their patterns say: big integers from text, capabilities by name, parts of containers', async t => {
  const counter = Far('Counter', {});
  const lookUp = async (name: string) => {
    if (name === 'counter') return counter;
    throw Error(`no ${name}`);
  };
  t.is(await decodeArgument('+42', M.nat(), 'arg1', lookUp), 42n);
  t.is(await decodeArgument(-7, M.bigint(), 'arg1', lookUp), -7n);
  t.is(await decodeArgument('12', M.gte(3n), 'arg1', lookUp), 12n);
  t.is(await decodeArgument('counter', M.remotable(), 'arg1', lookUp), counter);
  await t.throwsAsync(decodeArgument('twelve', M.nat(), 'arg1', lookUp), { message: /arg1 must be a big integer/ });
  await t.throwsAsync(decodeArgument('', M.remotable(), 'arg1', lookUp), { message: /arg1 must be the pet name of a capability/ });
  const record = await decodeArgument({ who: 'counter', n: '+1', note: 'x' }, M.splitRecord({ who: M.remotable(), n: M.nat() }, { note: M.string() }), 'arg1', lookUp);
  t.deepEqual(record, { who: counter, n: 1n, note: 'x' });
  t.deepEqual(await decodeArgument(['+1', '+2'], M.arrayOf(M.nat()), 'arg1', lookUp), [1n, 2n]);
  // An alternative is chosen by what the decoded value matches.
  const either = M.or(M.string(), M.nat());
  t.is(await decodeArgument('hello', either, 'arg1', lookUp), 'hello');
  const natFirst = M.or(M.nat(), M.string());
  t.is(await decodeArgument('+3', natFirst, 'arg1', lookUp), 3n);
  t.true(matches(harden(await decodeArgument('word', natFirst, 'arg1', lookUp)) as never, natFirst));
});

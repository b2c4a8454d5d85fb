import test from 'ava';
import { checkToolSchema } from '../src/toolbox/tool-schema.js';

const good = {
  type: 'function',
  function: {
    name: 'greet',
    description: 'Greets.',
    parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  },
};

test('a well-formed schema passes unchanged', t => {
  const check = checkToolSchema(good);
  t.true(check.ok);
  t.deepEqual(check.ok && check.schema, good);
});

test('missing parameters and description are filled in', t => {
  const check = checkToolSchema({ function: { name: 'now' } });
  t.deepEqual(check.ok && check.schema, {
    type: 'function',
    function: { name: 'now', description: '', parameters: { type: 'object', properties: {} } },
  });
});

test('malformed schemas are refused with the reason', t => {
  const cases: [unknown, RegExp][] = [
    ['greet', /must return a record/],
    [{ type: 'function' }, /no "function" record/],
    [{ function: { name: 'has space' } }, /tool name must be/],
    [{ function: { name: 'x', parameters: { type: 'array' } } }, /must have type "object"/],
    [{ function: { name: 'x', parameters: 'none' } }, /must be a JSON Schema object/],
    [{ type: 'other', function: { name: 'x' } }, /schema type must be "function"/],
  ];
  for (const [schema, problem] of cases) {
    const check = checkToolSchema(schema);
    t.false(check.ok);
    t.regex(check.ok ? '' : check.problem, problem);
  }
});

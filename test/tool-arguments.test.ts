import test from 'ava';
import { parseToolArguments, toMessageNumber } from '../src/toolbox/tool-arguments.js';

test('JSON objects parse; empty text means no arguments', t => {
  t.deepEqual(parseToolArguments('{"a": 1}'), { ok: true, args: { a: 1 } });
  t.deepEqual(parseToolArguments('  '), { ok: true, args: {} });
});

test('invalid JSON is refused with a message saying so', t => {
  const parsed = parseToolArguments('{"a": ');
  t.false(parsed.ok);
  t.regex(parsed.ok ? '' : parsed.error, /not valid JSON/);
});

test('JSON that is not an object is refused', t => {
  for (const text of ['[1,2]', '3', '"x"', 'null']) {
    const parsed = parseToolArguments(text);
    t.false(parsed.ok, text);
    t.regex(parsed.ok ? '' : parsed.error, /must be a JSON object/);
  }
});

test('message numbers accept integers and integer strings only', t => {
  t.is(toMessageNumber(3), 3n);
  t.is(toMessageNumber('12'), 12n);
  t.is(toMessageNumber(' 7 '), 7n);
  for (const bad of [1.5, -1, 'three', '1e3', null, undefined, {}, NaN]) {
    t.throws(() => toMessageNumber(bad), { message: /messageNumber must be a whole number/ });
  }
});

import test from 'ava';
import { makeEnvRedactor, makeRedactor } from '../src/logging/redact.js';

test('secret values are blanked wherever they appear', t => {
  const redact = makeEnvRedactor({ LAL_AUTH_TOKEN: 'tok-123456789', LAL_HOST: 'http://h' });
  t.is(redact('failed with tok-123456789 at http://h'), 'failed with [redacted] at http://h');
});

test('credential shapes are blanked even when the value is unknown', t => {
  const redact = makeRedactor([]);
  t.is(redact('Authorization: Bearer abcdefghijkl'), 'Authorization: Bearer [redacted]');
  t.is(redact('key sk-ant-abcdefghijklmnop here'), 'key [redacted] here');
  t.is(redact('{"x-api-key": "abcdefghijkl"}'), '{"x-api-key": "[redacted]"}');
});

test('text without secrets is unchanged', t => {
  t.is(makeEnvRedactor({})('nothing to hide'), 'nothing to hide');
});

import test from 'ava';
import { Far } from '@endo/far';
import { errorAsText, resultAsText } from '../src/toolbox/result-text.js';

test('a string result reaches the model as itself', t => {
  t.is(resultAsText('line 1\nline "2"'), 'line 1\nline "2"');
});

test('structured results keep bigints, undefined and remotables', t => {
  const text = resultAsText({ count: 5n, missing: undefined, tool: Far('Greeter', {}) });
  t.true(text.includes('count:5n'));
  t.true(text.includes('missing:undefined'));
  t.true(text.includes('Alleged: Greeter'));
});

test('errors read as { error: message }', t => {
  t.is(errorAsText('boom'), '{error:"boom"}');
});

import test from 'ava';
import { Far } from '@endo/far';
import { passableAsJustin } from '@endo/marshal';
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

test('a list of names reads as Justin writes it, whatever its strings hold', t => {
  const names = ['tools', 'x"y', 'ü\n', '\u2028', 'a\\b', '__proto__'];
  t.is(resultAsText(harden(names)), passableAsJustin(harden(names), false));
  t.is(resultAsText(harden([])), '[]');
  // Anything else in the list: Justin as ever.
  t.is(resultAsText(harden(['a', 1n])), '["a",1n]');
});

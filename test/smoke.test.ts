import test from 'ava';
import { makeExo } from '@endo/exo';
import { E } from '@endo/far';
import { FaeToolInterface } from '../src/tool-kit/fae-tool-interface.js';

test('tests run under SES lockdown', t => {
  t.true(Object.isFrozen(Array.prototype));
  t.is(typeof harden, 'function');
});

test('a FaeTool exo answers through E()', async t => {
  const tool = makeExo('Echo', FaeToolInterface, {
    schema: () => harden({ type: 'function', function: { name: 'echo' } }),
    execute: async (args: Record<string, unknown>) => `echo ${String(args.text)}`,
    help: () => 'echoes',
  });
  t.is(await E(tool).execute({ text: 'hi' }), 'echo hi');
});

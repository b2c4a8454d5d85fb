// A built-in's own execute (src/toolbox/built-ins/built-in-tool.ts), which fae calls
// instead of going through the exo's guard: it answers and refuses as the
// exo does, and executeTool uses it.
import test from 'ava';
import { E } from '@endo/far';
import { makeExo } from '@endo/exo';
import { FaeToolInterface } from '../src/tool-kit/fae-tool-interface.js';
import { defineBuiltIn, ownExecuteOf, withOwnExecute } from '../src/toolbox/built-ins/built-in-tool.js';
import { executeTool } from '../src/toolbox/tools.js';
import type { FaeTool } from '../src/toolbox/discovered-tools.js';

const echo = () =>
  defineBuiltIn({
    name: 'echo',
    description: 'Says its text back.',
    parameters: { text: { type: 'string', description: 'What to say.' } },
    required: ['text'],
    execute: async args => `said ${String(args.text)}`,
  });

test('a built-in has an own execute that answers and refuses as its exo does', async t => {
  const [, tool] = echo();
  const own = ownExecuteOf(tool);
  if (own === undefined) throw Error('no own execute');
  t.is(await own(harden({ text: 'hi' })), await E(tool).execute(harden({ text: 'hi' })));
  const refusal = await t.throwsAsync(E(tool).execute(harden({ txt: 'hi' })));
  await t.throwsAsync(own(harden({ txt: 'hi' })), { message: refusal?.message });
  t.is(ownExecuteOf(harden({})), undefined, 'nothing else has one');
});

test('executeTool runs a built-in by its own execute, not through its exo', async t => {
  const tool = withOwnExecute(
    makeExo('TwoFacedBuiltIn', FaeToolInterface, {
      schema: () => harden({}),
      execute: async () => 'through the exo',
      help: () => '',
    }),
    async () => 'its own',
  );
  t.is(await executeTool('two', { text: 'hi' }, new Map([['two', tool as unknown as FaeTool]])), 'its own');
});

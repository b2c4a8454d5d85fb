// discoverTools and executeTool on their own, with hand-made powers.
import test from 'ava';
import { Far } from '@endo/far';
import { makePromiseKit } from '@endo/promise-kit';
import { discoverTools, executeTool } from '../src/toolbox/tools.js';
import type { FaeTool } from '../src/toolbox/discovered-tools.js';
import { withTimeout } from '../src/timeout.js';
import { makeToolWithSchema } from './support/tool-caplets.js';

const schemaNamed = (name: string) => ({
  type: 'function',
  function: { name, description: name, parameters: { type: 'object', properties: {} } },
});

test('discovery issues every lookup before waiting for any', async t => {
  const names = ['a', 'b', 'c', 'd', 'e'];
  const allRequested = makePromiseKit<void>();
  let requested = 0;
  const powers = Far('Powers', {
    list: () => harden(names),
    lookup: async (path: string[]) => {
      requested += 1;
      if (requested === names.length) allRequested.resolve();
      // Answers only once every lookup is under way: one by one would hang.
      await allRequested.promise;
      return makeToolWithSchema(schemaNamed(`tool_${path[1]}`));
    },
  });
  const found = await withTimeout(discoverTools(powers as never, new Map()), 2000, () => 'lookups were made one at a time');
  t.deepEqual(found.schemas.map(s => s.function.name), names.map(n => `tool_${n}`));
});

test('tool order is stable: built-ins first, then tools/ by pet name, whatever answers first', async t => {
  const slow = makePromiseKit<void>();
  const powers = Far('Powers', {
    list: () => harden(['alpha', 'beta']),
    lookup: async (path: string[]) => {
      if (path[1] === 'alpha') await slow.promise;
      return makeToolWithSchema(schemaNamed(path[1]));
    },
  });
  const builtIn = makeToolWithSchema(schemaNamed('builtin'));
  const pending = discoverTools(powers as never, new Map([['builtin', builtIn as unknown as FaeTool]]));
  setTimeout(() => slow.resolve(), 20);
  const found = await pending;
  t.deepEqual(found.schemas.map(s => s.function.name), ['builtin', 'alpha', 'beta']);
});

test('a missing tools directory means no daemon tools, not a failure', async t => {
  const powers = Far('Powers', {
    list: () => {
      throw Error('Unknown pet name: "tools"');
    },
  });
  const found = await discoverTools(powers as never, new Map());
  t.deepEqual(found.schemas, []);
});

test('executeTool refuses unknown names, listing the known ones', async t => {
  const toolMap = new Map([['greet', makeToolWithSchema(schemaNamed('greet'), 'hi') as unknown as FaeTool]]);
  t.is(await executeTool('greet', {}, toolMap), 'hi');
  await t.throwsAsync(executeTool('nope', {}, toolMap), { message: 'Unknown tool "nope". The tools are: greet' });
});

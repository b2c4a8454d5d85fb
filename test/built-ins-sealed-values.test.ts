// Every name fae seals from its tools (src/agent/authority/sealed-names.ts) is
// sealed alike, not only the conversation store (built-ins-sealed.test.ts
// walks every built-in over that one): the usage record, the host's budget,
// the LLM settings, the host's approval policy and standing approvals, and
// fae's record of the names its model made, with a value stored under each, are refused to
// every kind of use in the spellings that reach them, and are intact after.
import test from 'ava';
import { E } from '@endo/far';
import { startGuestWithBuiltIns } from './support/built-ins.js';
import { SEALED_NAMES } from '../src/agent/authority/sealed-names.js';

const refusal = (shown: string, holds: string) => `${JSON.stringify(shown)} is ${holds}; no tool may read or change it`;

test('the usage record, the budget, the LLM settings, the approval policy and grants, and the records of model names and approved calls are sealed like the conversations', async t => {
  const values = SEALED_NAMES.filter(({ name }) => name !== 'conversations');
  t.deepEqual(values.map(({ name }) => name), ['usage', 'budget', 'llm-settings', 'approval-policy', 'approval-grants', 'model-names', 'approved-calls', 'adopted-from', 'correspondent-names']);
  const { powers, call, special } = await startGuestWithBuiltIns(t, {
    prepare: async host => E(host).storeValue('scratch value', 'scratch'),
    introduced: ['scratch'],
    hooks: { sealed: SEALED_NAMES },
  });
  await Promise.all(values.map(({ name }) => E(powers).storeValue(harden({ secret: `kept in ${name}` }), name)));
  for (const { name, holds } of values) {
    const spellings = [
      [name, name],
      [`/${name}/`, name],
      [`./${name}`, name],
      [[name], name],
      [`${special.self}/${name}`, `${special.self}/${name}`],
      [`${special.agent}/${name}`, `${special.agent}/${name}`],
    ] as const;
    for (const [spelling, shown] of spellings) {
      const text = typeof spelling === 'string' ? spelling : spelling.join('/');
      const attempts = {
        lookup: { petName: spelling },
        list: { path: spelling },
        identify: { petName: spelling },
        store: { value: 'overwritten', petName: spelling },
        remove: { petName: spelling },
        copy: { from: spelling, to: 'stolen', replace: true },
        move: { from: 'scratch', to: spelling, replace: true },
        send: { recipient: special.host, strings: ['take ', ''], edgeNames: ['gift'], petNames: [text] },
      };
      for (const [tool, args] of Object.entries(attempts)) {
        await t.throwsAsync(call(tool, args), { message: refusal(shown, holds) }, `${tool} ${JSON.stringify(spelling)}`);
      }
    }
  }
  // Listing fae's directory does not show them; they are all still there, unchanged.
  const listed = JSON.stringify(await call('list'));
  for (const { name } of values) t.false(listed.includes(`"${name}"`), listed);
  const kept = await Promise.all(values.map(({ name }) => E(powers).lookup(name)));
  t.deepEqual(kept, values.map(({ name }) => ({ secret: `kept in ${name}` })));
  t.false(await E(powers).has('stolen'));
});

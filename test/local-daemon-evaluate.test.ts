// Evaluation in the local daemon (spec §4.3, next spec §6): on May and
// August an agent's evaluate runs code at once in a fresh worker, with
// endowments from its own names; on February a guest's requestEvaluation
// mails its host an eval-request and waits, and the host runs it with
// approveEvaluation or declines it with reject.
import test from 'ava';
import { E } from '@endo/far';
import { makeLocalDaemon, type MessageRecord } from './support/daemon.js';

// `any`: daemon objects are remote presences.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;
type EvalRequest = MessageRecord & { readonly source?: string; readonly codeNames?: string[]; readonly petNamePaths?: string[][] };

const setup = async (dialect: 'feb' | 'may' | 'aug') => {
  const daemon = makeLocalDaemon({ dialect });
  const host: Far = await daemon.host;
  const guest: Far = await E(host).provideGuest('fae', { agentName: 'profile-for-fae' });
  await E(guest).storeValue(3, 'three');
  return { daemon, host, guest };
};

test('May and August: evaluate runs at once, with endowments, and names its result', async t => {
  for (const dialect of ['may', 'aug'] as const) {
    const { daemon, guest } = await setup(dialect);
    t.is(await E(guest).evaluate(undefined, 'n * 2', ['n'], ['three']), 6, dialect);
    t.is(await E(guest).evaluate(undefined, '[typeof E, typeof Far, typeof M, typeof makeExo].join()', [], []), 'function,function,object,function');
    t.is(await E(guest).evaluate(undefined, 'n + 1', ['n'], ['three'], 'four'), 4);
    t.is(await E(guest).lookup('four'), 4);
    await t.throwsAsync(E(guest).evaluate(undefined, 'n', ['n', 'm'], ['three']), {
      message: 'Evaluation must have the same number of code names (2) as pet names (1)',
    });
    await t.throwsAsync(E(guest).evaluate(undefined, 'n', ['n'], ['nowhere']), { message: 'Unknown pet name ["nowhere"]' });
    await t.throwsAsync(E(guest).evaluate(undefined, 'throw Error("from the code")', [], []), { message: 'from the code' });
    await t.throwsAsync(E(guest).requestEvaluation('1', [], []), { message: /target has no method "requestEvaluation"|requestEvaluation/ });
    await daemon.stop();
  }
});

test('February: requestEvaluation waits for the host, who runs it with approveEvaluation or declines it', async t => {
  const { daemon, host, guest } = await setup('feb');
  await t.throwsAsync(E(guest).evaluate(undefined, '1', [], []), { message: /evaluate/ });
  const asked = E(guest).requestEvaluation('n + 1', ['n'], ['three']);
  const [request] = (await E(host).listMessages()) as EvalRequest[];
  t.like(request, { type: 'eval-request', source: 'n + 1', codeNames: ['n'], petNamePaths: [['three']] });
  t.is((((await E(guest).listMessages()) as EvalRequest[])[0]).type, 'eval-request', 'a copy in the guest inbox');
  await E(host).approveEvaluation(request.number);
  t.is(await asked, 4);

  const declined = E(guest).requestEvaluation('n', ['n'], ['three']);
  const second = ((await E(host).listMessages()) as EvalRequest[]).at(-1) as EvalRequest;
  await E(host).reject(second.number, 'not today');
  await t.throwsAsync(declined, { message: 'not today' });
  await t.throwsAsync(E(host).approveEvaluation(999n), { message: 'No such message with number "[999n]"' });
  await E(host).send('fae', ['hi'], [], []);
  const note = ((await E(host).listMessages()) as EvalRequest[]).find(m => m.type === 'package') as EvalRequest;
  await t.throwsAsync(E(host).approveEvaluation(note.number), { message: `Message "[${note.number}n]" is not an eval-request (is "package")` });
  await t.throwsAsync(E(guest).requestEvaluation('n', ['n', 'm'], ['three']), { message: 'Eval request must have one pet name path for each code name' });
  await daemon.stop();
});

// evaluate under review (issue 22), through the local daemon in every
// dialect: off by default, leaving no trace in the tools or the prompt;
// with FAE_EVALUATE=review, February's daemon asks the host itself (an
// eval-request, approve-eval or reject), and on May and August fae asks
// first with its form and runs the code only once approved, in a fresh
// worker. The result or the error reaches the model; sealed names are
// never endowed; code holding a secret is never shown or run.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { E } from '@endo/far';
import { startFaeInDaemon, type Far } from './support/fae-harness.js';
import { makeScriptedProvider, type ScriptedReply } from './support/scripted-provider.js';
import { dialect, messageText, type MessageRecord } from './support/daemon.js';
import { answerApproval, isApprovalDetail, isApprovalRequest, makeApprovalReader } from './support/approvals.js';
import { FAE_SYSTEM_PROMPT } from '../src/agent/turn/system-prompt.js';

const WAIT_MS = 30_000;
const SECRET = 'sk-evaluate-secret-0123456789';

type EvalRequest = MessageRecord & { readonly source?: string; readonly codeNames?: string[]; readonly petNamePaths?: string[][] };

/** A model that evaluates `source` with `endowments`, then says what it was told. */
const evaluateThenSay =
  (source: string, endowments: Record<string, string> = { n: 'three' }): ScriptedReply =>
  request => {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') return { text: `tool said: ${last.content}` };
    return { toolCalls: [{ name: 'evaluate', arguments: { source, endowments } }] };
  };

const startEvaluating = async (
  t: ExecutionContext,
  reply: ScriptedReply,
  env: Record<string, string> = { FAE_EVALUATE: 'review' },
  prepare: (fae: Far) => Promise<void> = async () => {},
) => {
  t.timeout(120_000);
  const llm = makeScriptedProvider(Array.from({ length: 20 }, () => reply));
  const started = await startFaeInDaemon({ provider: llm.provider, env: { LAL_AUTH_TOKEN: SECRET, ...env } });
  t.teardown(() => started.daemon.stop());
  await started.nextFromFae(WAIT_MS);
  await E(started.fae).storeValue(3, 'three');
  await prepare(started.fae);
  await E(started.host).send('fae', ['Double three, please'], [], []);
  /** fae's next message to the host: its answer, or what it asks. */
  // fae's messages to the host, an approval request's whole text (May, August) read with its form.
  const reader = makeApprovalReader();
  const next = async () => {
    for (;;) {
      const message = await started.nextFromFae(WAIT_MS);
      if (!isApprovalDetail(message)) return reader.request(message) ?? message;
      reader.request(message);
    }
  };
  return { ...started, llm, next };
};

/** The host reviews the code as its daemon lets it: approve-eval on February, the approval form elsewhere. */
const review = async (world: Awaited<ReturnType<typeof startEvaluating>>, decision: 'approve' | 'deny' | 'always', reason = '') => {
  const asked = (await world.next()) as EvalRequest;
  if (dialect === 'feb') {
    if (decision === 'deny') await E(world.host).reject(asked.number, reason);
    else await E(world.host).approveEvaluation(asked.number);
  } else {
    await answerApproval(world.host, asked, decision, reason);
  }
  return asked;
};

test('off by default: no evaluate among the tools, and the system prompt as it always was', async t => {
  const world = await startEvaluating(t, () => ({ text: 'no code' }), {});
  t.is(messageText(await world.next()), 'no code');
  t.false(world.llm.requests[0].toolNames.includes('evaluate'));
  t.is(world.llm.requests[0].messages[0].content, FAE_SYSTEM_PROMPT);
});

test('with FAE_EVALUATE=review the code runs only once the host has reviewed it, and its result reaches the model', async t => {
  const world = await startEvaluating(t, evaluateThenSay('n * 2'));
  const asked = await review(world, 'approve');
  t.true(world.llm.requests[0].toolNames.includes('evaluate'));
  t.regex(world.llm.requests[0].messages[0].content, /# Code\n- evaluate runs JavaScript you write/);
  if (dialect === 'feb') {
    t.like(asked, { type: 'eval-request', source: 'n * 2', codeNames: ['n'], petNamePaths: [['three']] });
  } else {
    t.true(isApprovalRequest(asked));
    t.regex(String(asked.description), /^Approval needed: run JavaScript code for you\? \(request [0-9a-f]{4}\)$/);
    const { text } = asked as unknown as { text: string };
    t.true(text.includes('The code (JavaScript, run in a fresh worker, where E, Far, M and makeExo are there too):\n```js\nn * 2\n```\nIt receives, from fae\'s directory:\n- n: three'), text);
    // Every evaluation is reviewed: no standing approval is offered.
    t.true(text.includes('Answer in the form that follows: approve (this once) or deny; yes and no do too.'), text);
    t.false(text.includes('always'), text);
    t.is((asked as unknown as { fields: readonly { label: string }[] }).fields[0].label, 'approve or deny (type one)');
  }
  t.is(messageText(await world.next()), 'tool said: 6');
  t.true(world.logs.some(line => / approval .*tool=evaluate .*decision=approved/.test(line)));
});

test('a refusal reaches the model with the reason; "always" runs the code once and grants nothing', async t => {
  const world = await startEvaluating(t, evaluateThenSay('n * 2'));
  await review(world, 'deny', 'no code today');
  t.regex(messageText(await world.next()), /no code today/);
  if (dialect === 'feb') return; // no "always" there: the daemon's review is per request
  await E(world.host).send('fae', ['Again'], [], []);
  await review(world, 'always');
  const said = [messageText(await world.next()), messageText(await world.next())].sort();
  t.regex(said[0], /^I ran evaluate as you approved, but gave it no standing approval: every call of evaluate is reviewed/);
  t.is(said[1], 'tool said: 6');
  const status = await E(await E(world.host).lookup('controller-for-fae')).status();
  t.deepEqual(status.approvals.grants, []);
});

test('a sealed name is never endowed, and code that holds a secret is neither shown nor run', async t => {
  const sealed = await startEvaluating(t, evaluateThenSay('c', { c: 'approval-grants' }));
  // February's check comes before the daemon is asked; elsewhere after the host's review.
  if (dialect !== 'feb') await review(sealed, 'approve');
  t.regex(messageText(await sealed.next()), /^tool said: .*approval-grants.* is the host's standing approvals; no tool may read or change it/);

  const secret = await startEvaluating(t, evaluateThenSay(`"${SECRET}".length`));
  const answer = messageText(await secret.next());
  t.is(answer, 'tool said: The code holds what looks like a secret, so it was neither shown to the host nor run. Write it without the secret.');
  t.false(JSON.stringify(await E(secret.host).listMessages(), (_, v) => (typeof v === 'bigint' ? String(v) : v)).includes(SECRET));
});

test('a path endowment runs on the newer daemons; on February, whose daemon breaks on one, it is refused saying what works', async t => {
  const world = await startEvaluating(t, evaluateThenSay('n * 2', { n: 'box/three' }), undefined, async fae => {
    await E(fae).makeDirectory('box');
    await E(fae).copy(['three'], ['box', 'three']);
  });
  if (dialect === 'feb') {
    const answer = messageText(await world.next());
    // The tool's error, as the model reads it (its quotes escaped).
    t.is(
      answer.replaceAll('\\"', '"'),
      'tool said: {error:"on this daemon evaluate takes names at the top of your directory only, not a path such as "box/three": copy it to a name of its own first (copy from "box/three" to "three"), then endow that name ({"n": "three"})"}',
    );
    const asked = ((await E(world.host).listMessages()) as MessageRecord[]).filter(m => m.type === 'eval-request');
    t.deepEqual(asked, [], 'the daemon was never asked');
  } else {
    await review(world, 'approve');
    t.is(messageText(await world.next()), 'tool said: 6');
  }
});

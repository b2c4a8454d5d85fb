// Ask before acting (issue 22), through the local daemon in every dialect:
// a call that needs approval reaches the host (a form on May and August, a
// request on February) and runs only once approved; a denial, an unclear
// answer or no answer in time reaches the model as a tool result and the
// turn goes on; "always" is a grant the host sees and revokes; only the
// waiting turn waits; a restart while waiting runs nothing later.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { E } from '@endo/far';
import { startFaeInDaemon, type Far, type FaeHarnessOptions } from './support/fae-harness.js';
import { makeScriptedProvider, lastUserWords, type ScriptedReply } from './support/scripted-provider.js';
import { dialect, fromSelf, messageText, type MessageRecord } from './support/daemon.js';
import { makeShippedTool, makeToolCaplet } from './support/tool-caplets.js';
import { makeCorrespondent } from './support/correspondent.js';
import { until } from './support/until.js';
import { UNKNOWN_FORM_TEXT } from '../src/agent/host/host-forms.js';
import { answerApproval, callThenSay, isApprovalRequest, makeApprovalReader, makeRecordingTool } from './support/approvals.js';

const WAIT_MS = 30_000;

/**
 * The texts of fae's messages in a correspondent's inbox, as they stand now
 * (on August a progress reply is edited into the answer under one number).
 */
const textsFromFae = async (guest: Far) => {
  const notOwn = fromSelf(guest);
  const messages: MessageRecord[] = await E(guest).listMessages();
  const others = await Promise.all(messages.map(async message => ((await notOwn(message)) ? [messageText(message)] : [])));
  return others.flat();
};

/** The first text fae has sent `guest` that starts with `prefix`, once there is one. */
const sentStarting = async (guest: Far, prefix: string) => {
  let found: string | undefined;
  await until(async () => {
    found = (await textsFromFae(guest)).find(text => text.startsWith(prefix));
    return found !== undefined;
  });
  return found ?? `(nothing starting with ${prefix})`;
};

/** fae with the recording tool `touch` (which asks for approval itself) in its tools/. */
const startWithTouch = async (
  t: ExecutionContext,
  { reply = callThenSay(), env = {}, extra = {} }: { reply?: ScriptedReply; env?: Record<string, string>; extra?: Partial<FaeHarnessOptions> } = {},
) => {
  t.timeout(120_000);
  const runs: string[] = [];
  const llm = makeScriptedProvider(Array.from({ length: 60 }, () => reply));
  const started = await startFaeInDaemon({
    provider: llm.provider,
    env,
    ...extra,
    introducedNames: { touch: 'touch', ...(extra.introducedNames ?? {}) },
    prepare: async (host, daemon) => {
      await makeToolCaplet(daemon, 'touch', () => makeRecordingTool(runs));
      await extra.prepare?.(host, daemon);
    },
  });
  t.teardown(() => started.daemon.stop());
  await started.nextFromFae(WAIT_MS); // ready
  const { host } = started;
  const say = (text: string) => E(host).send('fae', [text], [], []);
  /** The next message fae sends the host that is an approval request. */
  const reader = makeApprovalReader();
  const nextRequest = async () => {
    for (;;) {
      const request = reader.request(await started.nextFromFae(WAIT_MS));
      if (request !== undefined) return request;
    }
  };
  /** The text of fae's next message to the host that is no approval request. */
  const nextText = async () => {
    for (;;) {
      const message = await started.nextFromFae(WAIT_MS);
      if (reader.request(message) === undefined && !reader.skip(message)) return messageText(message);
    }
  };
  const status = async () => E(await E(host).lookup('controller-for-fae')).status();
  return { ...started, llm, runs, say, nextRequest, nextText, status };
};

test('a call that needs approval waits for the host, and runs once approved; the decision is logged', async t => {
  const world = await startWithTouch(t);
  await world.say('Please touch x');
  const request = await world.nextRequest();
  t.is(request.type, dialect === 'feb' ? 'request' : 'form');
  const text = request.text;
  t.regex(text, /^Approval needed: call touch \(what: x\) for you\? \(request [0-9a-f]{4}\)\n/);
  if (request.type === 'form') {
    // The form is one line a person reads at a glance, the fewest choices; the whole request came before it, as markdown.
    t.regex(String(request.description), /^Approval needed: call touch \(what: x\) for you\? \(request [0-9a-f]{4}\)$/);
    t.deepEqual(
      (request as unknown as { fields: readonly { name: string; label: string }[] }).fields.map(({ name, label }) => `${name}: ${label}`),
      ['decision: approve, deny or always (type one)', 'reason: Reason, if any (the model is told)'],
    );
    t.regex(
      text,
      /Answer in the form that follows: approve \(this once\), deny, always \(from now on touch needs no approval in your turns\) or "always for everyone"; yes and no do too\. An answer I cannot read, or none, is a denial/,
    );
    t.regex(text, /endo submit N -f decision:approve/);
  }
  t.regex(text, /While answering your message "Please touch x", fae's model wants to call touch \(tools\/touch\)/);
  t.regex(text, /- what: `x`/);
  t.deepEqual(world.runs, [], 'nothing ran before the answer');
  await answerApproval(world.host, request, 'approve');
  t.is(await world.nextText(), 'tool said: touched x');
  t.deepEqual(world.runs, ['x']);
  const line = world.logs.find(l => l.includes(' approval ') && l.includes('decision='));
  t.regex(line as string, /approval message=\d+ from=\S+ tool=touch arguments="what=x" decision=approved by=host waitedMs=\d+/);
});

test('a denial reaches the model as the tool result, with the reason, and the turn goes on', async t => {
  const world = await startWithTouch(t);
  await world.say('Please touch x');
  await answerApproval(world.host, await world.nextRequest(), 'deny', 'not today');
  t.regex(await world.nextText(), /^tool said: The host denied this: not today\./);
  t.deepEqual(world.runs, []);
  t.true(world.logs.some(l => /decision=denied by=host waitedMs=\d+ reason="not today"/.test(l)));
});

test('an answer fae does not understand is a denial, and both the model and the host are told', async t => {
  const world = await startWithTouch(t);
  await world.say('Please touch x');
  await answerApproval(world.host, await world.nextRequest(), 'maybe later');
  const texts = [await world.nextText(), await world.nextText()].sort();
  t.regex(texts[0], /^I took your answer on touch for .* as a denial: "maybe later" is not a decision fae understands/);
  t.regex(texts[1], /^tool said: The host's answer was not understood/);
  t.deepEqual(world.runs, []);
});

test('"always" is a standing grant the host sees and revokes; revoking counts from the next call', async t => {
  const world = await startWithTouch(t);
  await world.say('Please touch x');
  await answerApproval(world.host, await world.nextRequest(), 'always for me');
  t.is(await world.nextText(), 'tool said: touched x');
  const { approvals } = await world.status();
  t.is(approvals.grants.length, 1);
  t.like(approvals.grants[0], { number: 1, tool: 'touch' });
  t.deepEqual(Object.keys(approvals.grants[0]).sort(), ['for', 'granted', 'number', 'tool'], 'no ids in status');

  await world.say('Again, please');
  t.is(await world.nextText(), 'tool said: touched x', 'no approval asked under the grant');
  t.deepEqual(world.runs, ['x', 'x']);
  t.true(world.logs.some(l => /decision=approved by="standing grant #1"/.test(l)));

  await world.say('/approvals');
  const listed = await world.nextText();
  t.regex(listed, /^Calls that need your approval: default \(runCommand, writeFile, editFile and edit\) \(from [^)]+\), and those of any tool that asks for it itself/);
  t.regex(listed, /Standing approvals \(\/revoke N revokes one\):\n- 1: touch for .+, since \d{4}-\d\d-\d\d \d\d:\d\d UTC$/m);
  await world.say('/revoke 1');
  t.is(await world.nextText(), 'Revoked standing approval 1: from the next call on, I ask you again.');
  t.deepEqual((await world.status()).approvals.grants, []);
  await world.say('Once more');
  await answerApproval(world.host, await world.nextRequest(), 'deny');
  t.regex(await world.nextText(), /The host denied this/);
  t.deepEqual(world.runs, ['x', 'x']);
});

test('/revoke N works as the Endo Chat UI sends it, without the space ("/revoke1")', async t => {
  const world = await startWithTouch(t);
  await world.say('Please touch x');
  await answerApproval(world.host, await world.nextRequest(), 'always for me');
  t.is(await world.nextText(), 'tool said: touched x');
  t.is((await world.status()).approvals.grants.length, 1);
  await world.say('/revoke1');
  t.is(await world.nextText(), 'Revoked standing approval 1: from the next call on, I ask you again.');
  t.deepEqual((await world.status()).approvals.grants, []);
  await world.say('/revoke#7');
  t.is(await world.nextText(), 'There is no standing approval 7; /approvals lists them.');
});

test('no answer in time is a denial; an answer after that runs nothing, and the host is told', async t => {
  const world = await startWithTouch(t, { env: { FAE_APPROVAL_TIMEOUT_MS: '500' } });
  await world.say('Please touch x');
  const request = await world.nextRequest();
  t.regex(request.text, /I wait 500 ms for your answer; after that it counts as a denial/);
  // The model's answer and the host's notice come in either order.
  const [told, answered] = [await world.nextText(), await world.nextText()].sort((a, b) => (a.startsWith('tool said') ? 1 : b.startsWith('tool said') ? -1 : 0));
  t.regex(answered, /^tool said: The host did not answer within 500 ms, so this was not run\./);
  t.regex(told, /^I stopped waiting for your answer to "Approval needed: call touch .*" \(I had waited 500 ms\): it counts as a denial, nothing was run, and an answer now changes nothing\./);
  await answerApproval(world.host, request, 'approve');
  t.regex(await world.nextText(), /^Your answer to "Approval needed: call touch .*" came after I had stopped waiting \(I had waited 500 ms\); nothing was run\./);
  t.deepEqual(world.runs, []);
  t.true(world.logs.some(l => /decision=denied by=timeout/.test(l)));
});

/** fae with `touch`, whose one call the host has approved with a form (and it ran). */
const approvedOnce = async (t: ExecutionContext) => {
  const world = await startWithTouch(t);
  await world.say('Please touch x');
  const request = await world.nextRequest();
  await answerApproval(world.host, request, 'approve');
  t.is(await world.nextText(), 'tool said: touched x');
  return { world, request };
};

test('a form answered again after a restart is no message for the model: the host hears it changes nothing', async t => {
  if (dialect === 'feb') {
    t.pass('February has no forms');
    return;
  }
  const { world, request } = await approvedOnce(t);
  const asked = world.llm.requests.length;
  await world.daemon.restart();
  await E(await E(world.host).lookup('controller-for-fae')).whenStarted();
  await answerApproval(world.host, request, 'deny');
  t.is(await world.nextText(), UNKNOWN_FORM_TEXT);
  t.is(world.llm.requests.length, asked, 'the model was not asked about it');
  t.deepEqual(world.runs, ['x']);
});

test('only the waiting turn waits: another correspondent is answered meanwhile, and the waiting one is told once', async t => {
  const reply: ScriptedReply = request => {
    if (lastUserWords(request.messages) === 'hello') return { text: 'hi there' };
    const last = request.messages.at(-1);
    if (last?.role === 'tool') return { text: `tool said: ${last.content}` };
    // Two calls that need approval in one response: the sender hears of the wait once.
    return { toolCalls: [{ name: 'touch', arguments: { what: 'a' } }, { name: 'touch', arguments: { what: 'b' } }] };
  };
  // One turn at a time: the waiting turn must give up its place.
  const world = await startWithTouch(t, { reply, env: { FAE_CONCURRENT_TURNS: '1' } });
  const alice = await makeCorrespondent(world.host);
  await alice.say('touch a and b');
  const first = await world.nextRequest();
  const second = await world.nextRequest();
  const waitingText = "Working on it… waiting for my host's approval to run touch.";
  t.is(await sentStarting(alice.guest, 'Working on it'), waitingText);
  await world.say('hello');
  t.is(await world.nextText(), 'hi there', "the host's turn ran while alice's waited");
  await answerApproval(world.host, first, 'approve');
  await answerApproval(world.host, second, 'approve');
  t.regex(await sentStarting(alice.guest, 'tool said:'), /^tool said: touched/);
  t.deepEqual([...world.runs].sort(), ['a', 'b']);
  // Told once: one message that says so (on August, the same message edited into the answer).
  const texts = await textsFromFae(alice.guest);
  t.deepEqual(texts.filter(text => text !== waitingText).length, 1, texts.join(' | '));
  t.true(texts.length <= 2, texts.join(' | '));
});


test('FAE_APPROVE names a tool for one correspondent by identity; a policy value stored by the host replaces it at once', async t => {
  const plainRuns: string[] = [];
  const world = await startWithTouch(t, {
    reply: callThenSay('note'),
    env: { FAE_APPROVE: 'note@alice' },
    extra: {
      introducedNames: { note: 'note' },
      prepare: async (_host, daemon) => {
        await makeToolCaplet(daemon, 'note', () => makeRecordingTool(plainRuns, { name: 'note', needsApproval: false }));
      },
    },
  });
  await world.say('note it');
  t.is(await world.nextText(), 'tool said: touched x', "the host's call needs no approval");
  const alice = await makeCorrespondent(world.host);
  // fae's name for alice: the policy names her by it.
  await E(world.host).copy(['alice'], ['profile-for-fae', 'alice']);
  await alice.say('note it');
  const request = await world.nextRequest();
  t.regex(request.text, /^Approval needed: call note \(what: x\) for alice\?/);
  await answerApproval(world.host, request, 'deny');
  t.regex(await sentStarting(alice.guest, 'tool said:'), /The host denied this/);
  t.deepEqual(plainRuns, ['x']);

  // The host stores a policy: nothing needs approval now.
  await E(world.fae).storeValue('none', 'approval-policy');
  await until(async () => (await world.status()).approvals.policy === 'none');
  t.is((await world.status()).approvals.policyFrom, 'approval-policy');
  await alice.say('note it again');
  await until(async () => plainRuns.length === 2);
  t.true((await textsFromFae(alice.guest)).includes('tool said: touched x'));
  t.deepEqual(plainRuns, ['x', 'x']);
});

test('a rule names a correspondent the host named with /name, by identity', async t => {
  const plainRuns: string[] = [];
  const world = await startWithTouch(t, {
    reply: callThenSay('note'),
    env: { FAE_APPROVE: 'note@carol' },
    extra: {
      introducedNames: { note: 'note' },
      prepare: async (_host, daemon) => {
        await makeToolCaplet(daemon, 'note', () => makeRecordingTool(plainRuns, { name: 'note', needsApproval: false }));
      },
    },
  });
  const carol = await makeCorrespondent(world.host, 'carol');
  const bob = await makeCorrespondent(world.host, 'bob');
  // fae's directory names neither: the rule holds for every correspondent but the host.
  await carol.say('note it');
  const first = await world.nextRequest();
  const label = /^Approval needed: call note \(what: x\) for an unnamed sender \((unnamed-[0-9a-f]{8})\)\?/.exec(first.text)?.[1];
  if (label === undefined) return t.fail(first.text);
  // The request says how to name the sender.
  t.true(first.text.includes(`answer me \`/name ${label} NAME\``), first.text);
  await answerApproval(world.host, first, 'deny');
  t.regex(await sentStarting(carol.guest, 'tool said:'), /The host denied this/);

  await world.say(`/name ${label} carol`);
  t.is(await world.nextText(), `From now on I call ${label} carol.`);
  // Now the rule is carol's alone: bob's call runs unasked, carol's is asked for by her name.
  await bob.say('note it');
  await until(async () => plainRuns.length === 1);
  await carol.say('note it again');
  const second = await world.nextRequest();
  t.regex(second.text, /^Approval needed: call note \(what: x\) for carol\?/);
  await answerApproval(world.host, second, 'approve');
  await until(async () => plainRuns.length === 2);
  t.deepEqual(plainRuns, ['x', 'x']);
});

test("the model's tools can neither read nor change the policy or the grants, nor see fae's requests", async t => {
  const reply: ScriptedReply = request => {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') return { text: request.messages.filter(m => m.role === 'tool').map(m => m.content).join('\n---\n') };
    if (lastUserWords(request.messages) !== 'look') return { toolCalls: [{ name: 'touch', arguments: { what: 'x' } }] };
    return {
      toolCalls: [
        { name: 'listMessages', arguments: {} },
        { name: 'store', arguments: { petName: 'approval-grants', value: { grants: [] } } },
        { name: 'lookup', arguments: { petName: 'approval-policy' } },
      ],
    };
  };
  const world = await startWithTouch(t, { reply });
  // A request of fae's waits in the host's inbox (and its copy in fae's), for alice's turn.
  const alice = await makeCorrespondent(world.host);
  await alice.say('touch it');
  const request = await world.nextRequest();
  await world.say('look');
  const [listed, stored, looked] = (await world.nextText()).split('\n---\n');
  t.false(listed.includes('Approval needed'), 'no approval request in listMessages');
  t.regex(stored, /approval-grants.*the host's standing approvals; no tool may read or change it/);
  t.regex(looked, /approval-policy.*the host's policy of what needs its approval; no tool may read or change it/);
  await answerApproval(world.host, request, 'deny');
  t.regex(await sentStarting(alice.guest, 'The host denied this'), /^The host denied this: no reason given\./);
});

test('a restart while waiting runs nothing twice: a form still waiting is taken up, a February request is asked anew', async t => {
  const world = await startWithTouch(t);
  await world.say('Please touch x');
  const old = await world.nextRequest();
  await world.daemon.restart();
  await E(await E(world.host).lookup('controller-for-fae')).whenStarted();
  if (dialect === 'feb') {
    // A request cannot be taken up: the replayed turn asks again, and the old one, answered, is told it waits no more.
    const renewed = await world.nextRequest();
    t.not(renewed.number, old.number);
    t.is(renewed.text.split('\n')[0], old.text.split('\n')[0], 'the same request has the same title');
    await answerApproval(world.host, old, 'approve');
    t.regex(await world.nextText(), /^That approval request is no longer waiting: I was restarted after I sent it, and nothing was run\./);
    t.deepEqual(world.runs, []);
    await answerApproval(world.host, renewed, 'approve');
  } else {
    // The replayed turn waits for the form sent before the restart: no second form, no second message.
    await until(async () => world.logs.some(line => line.includes('form-reopened')));
    await answerApproval(world.host, old, 'approve');
  }
  t.is(await world.nextText(), 'tool said: touched x');
  t.deepEqual(world.runs, ['x']);
  const asked = ((await E(world.host).listMessages()) as MessageRecord[]).filter(isApprovalRequest);
  t.is(asked.length, dialect === 'feb' ? 2 : 1);
});

test('an edit is shown to the host as a unified diff, and the shipped filesystem tools ask for approval themselves', async t => {
  const reply: ScriptedReply = request => {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') return { text: `tool said: ${last.content}` };
    return { toolCalls: [{ name: 'edit', arguments: { path: 'notes.txt', oldText: 'one\ntwo\nthree', newText: 'one\n2\nthree' } }] };
  };
  const world = await startWithTouch(t, {
    reply,
    extra: {
      introducedNames: { edit: 'edit' },
      prepare: async host => {
        await makeShippedTool(host, 'edit', 'edit');
      },
    },
  });
  await world.say('Change two to 2 in notes.txt');
  const request = await world.nextRequest();
  const text = request.text;
  t.regex(text, /^Approval needed: edit `notes\.txt` for you\? /);
  t.regex(text, /Edit notes\.txt, all changes or none/);
  t.true(text.includes('```diff\n--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n```'), text);
  await answerApproval(world.host, request, 'deny', 'not that file');
  t.regex(await world.nextText(), /^tool said: The host denied this: not that file\./);
});

test('approved means once: a call approved and maybe run before a crash is asked for again, saying so', async t => {
  const runs: string[] = [];
  // The model calls touch, then hangs: fae is restarted before the turn is stored.
  const llm = makeScriptedProvider([{ toolCalls: [{ name: 'touch', arguments: { what: 'x' } }] }, { hang: true }]);
  const world = await startFaeInDaemon({
    provider: llm.provider,
    introducedNames: { touch: 'touch' },
    prepare: async (_host, daemon) => {
      await makeToolCaplet(daemon, 'touch', () => makeRecordingTool(runs));
    },
  });
  t.teardown(() => world.daemon.stop());
  await world.nextFromFae(WAIT_MS);
  const reader = makeApprovalReader();
  const nextRequest = async () => {
    for (;;) {
      const request = reader.request(await world.nextFromFae(WAIT_MS));
      if (request !== undefined) return request;
    }
  };
  await E(world.host).send('fae', ['Please touch x'], [], []);
  const first = await nextRequest();
  t.false(first.text.includes('may have run'));
  await answerApproval(world.host, first, 'always');
  await until(async () => runs.length === 1);
  await llm.whenCalled(2);
  // A crash between the call and the turn's store: the message is replayed.
  llm.push(callThenSay(), callThenSay());
  await world.daemon.restart();
  await E(await E(world.host).lookup('controller-for-fae')).whenStarted();
  // Not even the standing grant just given covers it: the host is asked again, and told.
  const again = await nextRequest();
  t.regex(again.text, /This very call was approved before I was restarted, and it may have run already\./);
  t.deepEqual(runs, ['x'], 'nothing ran again before the host answered');
  await answerApproval(world.host, again, 'deny', 'it ran already');
  t.true(await until(async () => (await E(world.host).listMessages()).some((m: MessageRecord) => messageText(m).startsWith('tool said: The host denied this'))));
  t.deepEqual(runs, ['x']);
});

test('a form answered again is told so truthfully: the second answer changes nothing', async t => {
  if (dialect === 'feb') {
    t.pass('February has no forms: a request is settled once');
    return;
  }
  const { world, request } = await approvedOnce(t);
  // The Endo Chat UI lets a form be submitted again.
  await answerApproval(world.host, request, 'approve');
  t.regex(await world.nextText(), /^You had answered "Approval needed: call touch \(what: x\) for you\? \(request [0-9a-f]{4}\)" already; this second answer changes nothing\.$/);
  t.deepEqual(world.runs, ['x']);
});

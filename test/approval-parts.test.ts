// The parts of approvals that need no daemon: FAE_APPROVE's syntax, the
// host's decision words, and the request's text (diffs, first lines, cuts,
// redaction before cutting).
import './support/lockdown.js';
import test from 'ava';
import { isMarkedReadOnly, readApprovalPolicy, rulesNaming } from '../src/agent/authority/approval-policy.js';
import { readAnswerValue, readDecision } from '../src/agent/authority/approval-decision.js';
import { senderWord } from '../src/agent/authority/sender-names.js';
import { SHOWN_ARGUMENT_CHARS, approvalText, durationText, showingEverything, unshownArguments } from '../src/agent/authority/approval-text.js';
import { makeRedactor } from '../src/logging/redact.js';

const SECRET = 'sk-abcdefghijklmnop0123456789';
const redact = makeRedactor([SECRET]);

test('FAE_APPROVE: the default, none, all, names and names for one correspondent', t => {
  const byDefault = readApprovalPolicy(undefined);
  t.is(byDefault.text, 'default');
  t.deepEqual(rulesNaming(byDefault, { offered: 'runCommand' }), [{ tool: 'runCommand' }]);
  t.deepEqual(rulesNaming(byDefault, { offered: 'shell', petName: 'run-command' }), [{ tool: 'run-command' }]);
  t.deepEqual(rulesNaming(byDefault, { offered: 'readFile' }), []);
  t.deepEqual(readApprovalPolicy('none'), { none: true, rules: [], readOnly: [], text: 'none' });
  t.deepEqual(rulesNaming(readApprovalPolicy('all'), { offered: 'list' }), [{ tool: '*' }]);
  const mixed = readApprovalPolicy(' default , send@alice, remove@HOST, all@bob ');
  t.is(mixed.text, 'default,send@alice,remove@HOST,all@bob');
  t.deepEqual(rulesNaming(mixed, { offered: 'send' }), [{ tool: 'send', who: 'alice' }, { tool: '*', who: 'bob' }]);
  t.deepEqual(rulesNaming(mixed, { offered: 'remove' }), [{ tool: 'remove', who: 'HOST' }, { tool: '*', who: 'bob' }]);
  t.deepEqual(rulesNaming(readApprovalPolicy('greet@@host'), { offered: 'greet' }), [{ tool: 'greet', who: 'HOST' }]);
});

test('FAE_APPROVE: readonly marks a capability, or one method of it, as only reading; the default list still holds', t => {
  const policy = readApprovalPolicy('readonly:counter,readonly:files.read');
  t.deepEqual(policy.readOnly, ['counter', 'files.read']);
  t.deepEqual(rulesNaming(policy, { offered: 'runCommand' }), [{ tool: 'runCommand' }]);
  t.true(isMarkedReadOnly(policy, { offered: 'counter__increment', petName: 'counter', method: 'increment' }));
  t.true(isMarkedReadOnly(policy, { offered: 'files__read', petName: 'files', method: 'read' }));
  t.false(isMarkedReadOnly(policy, { offered: 'files__write', petName: 'files', method: 'write' }));
  t.true(readApprovalPolicy('send,readonly:counter').rules.every(rule => rule.tool === 'send'));
  t.throws(() => readApprovalPolicy('readonly:'), { message: /"readonly:" names no capability/ });
});

test('FAE_APPROVE: a mistake is refused with what was wrong', t => {
  t.throws(() => readApprovalPolicy('send,,remove'), { message: /FAE_APPROVE has an empty item in "send,,remove"/ });
  t.throws(() => readApprovalPolicy('none,send'), { message: /none cannot be combined/ });
  t.throws(() => readApprovalPolicy('send@Alice Smith'), { message: /"Alice Smith" in "send@Alice Smith" is neither a pet name nor HOST/ });
  t.throws(() => readApprovalPolicy('rm -rf'), { message: /"rm -rf" is not a tool name/ });
  t.throws(() => readApprovalPolicy('x y', 'approval-policy'), { message: /^approval-policy: / });
});

test('decisions are read leniently; anything else is unclear, saying why', t => {
  for (const word of ['approve', 'Yes', ' ok. ', 'OK!', 'allow']) t.deepEqual(readDecision(word, ['alice']), { kind: 'approve' }, word);
  for (const word of ['deny', 'No', 'refused']) t.deepEqual(readDecision(word, ['alice']), { kind: 'deny' }, word);
  // The fewest words give the least: "always" is for whoever asked; everyone must be said.
  t.deepEqual(readDecision('Always', ['alice']), { kind: 'always', forAsker: true });
  t.deepEqual(readDecision('always for everyone', ['alice']), { kind: 'always', forAsker: false });
  t.deepEqual(readDecision('always for alice', ['alice']), { kind: 'always', forAsker: true });
  t.deepEqual(readDecision('always for this correspondent', ['alice']), { kind: 'always', forAsker: true });
  t.deepEqual(readDecision('always for @host', ['@host', 'HOST', 'me']), { kind: 'always', forAsker: true });
  // A sender fae has no name for, by the label it is shown under.
  const unnamed = 'an unnamed sender (unnamed-1a2b3c4d)';
  t.is(senderWord(unnamed), 'unnamed-1a2b3c4d');
  t.is(senderWord('alice'), 'alice');
  t.deepEqual(readDecision('always for unnamed-1a2b3c4d', [senderWord(unnamed), unnamed]), { kind: 'always', forAsker: true });
  t.is(readDecision('always for unnamed-99999999', [senderWord(unnamed), unnamed]).kind, 'unclear');
  const why = (text: unknown) => {
    const decision = readDecision(text, ['alice']);
    return decision.kind === 'unclear' ? decision.why : `not unclear: ${decision.kind}`;
  };
  t.regex(why('always for bob'), /names "bob", but alice asked/);
  t.is(why(''), 'no decision was given');
  t.regex(why('perhaps'), /"perhaps" is not a decision fae understands/);
  t.regex(why(undefined), /not a text/);
});

test("February: the value the host resolves with is read as a decision", t => {
  t.deepEqual(readAnswerValue('always for alice'), { decision: 'always for alice', reason: '' });
  t.deepEqual(readAnswerValue({ decision: 'deny', reason: 'no' }), { decision: 'deny', reason: 'no' });
  // Any other value (the daemon's resolve needs one) approves once.
  t.deepEqual(readAnswerValue(harden({})), { decision: 'approve', reason: '' });
});

const call = (tool: string, args: Record<string, unknown>, petName?: string) =>
  harden({ tool, petName, args, asker: 'alice', about: '"please list the files…"', tag: 'beef' });
const textOf = (tool: string, args: Record<string, unknown>, petName?: string) =>
  approvalText(call(tool, args, petName), { waitText: '10 minutes', answering: 'Answer here.' });

test('the request says who asked, what, and how to answer', t => {
  const text = textOf('runCommand', { command: 'ls -la', timeout: 500 }, 'run-command');
  t.true(text.startsWith('Approval needed: run `ls -la` for alice? (request beef)\n\n'), text);
  t.regex(text, /While answering alice's message "please list the files…", fae's model wants to call runCommand \(tools\/run-command\)/);
  t.regex(text, /The command:\n```sh\nls -la\n```\n- timeout: `500`\n/);
  t.regex(text, /I wait 10 minutes for your answer; after that it counts as a denial\.\nAnswer here\.$/);
  t.regex(textOf('send', { recipient: 'bob', strings: ['hi'] }), /\(a built-in tool\)[\s\S]*- recipient: `bob`\n- strings: `\["hi"\]`/);
});

test('editFile and edit show unified diffs; writeFile the whole new content; each in a fenced block', t => {
  const edited = textOf('editFile', { filePath: 'a.txt', oldString: 'x\ny\nz', newString: 'x\nY\nz' });
  t.true(edited.startsWith('Approval needed: edit `a.txt` for alice? (request beef)\n'), edited);
  t.true(edited.includes('```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n x\n-y\n+Y\n z\n```'), edited);
  const several = textOf('edit', { path: 'b.txt', edits: [{ oldText: 'a', newText: 'b' }, { oldText: 'c', newText: 'c' }] });
  t.true(several.startsWith('Approval needed: edit `b.txt` in 2 places for alice?'), several);
  t.regex(several, /Change 1 of 2:\n```diff\n--- a\/b\.txt[\s\S]*-a\n\+b\n```\nChange 2 of 2:\n\(the replacement changes nothing\)/);
  const lines = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n');
  const written = textOf('writeFile', { filePath: 'c.txt', contents: lines });
  t.true(written.startsWith('Approval needed: write `c.txt` (100 lines) for alice?'), written);
  t.regex(written, /Write c\.txt: \d+ characters, 100 lines\. The new content, whole:\n```\nline 1\n/);
  t.true(written.includes('\nline 100\n```'), 'every line is shown');
  // A last newline ends a line; it starts none.
  t.regex(textOf('writeFile', { filePath: 'd.txt', contents: 'one\ntwo\n' }), /Write d\.txt: 8 characters, 2 lines\./);
  t.regex(textOf('writeFile', { filePath: 'e.txt', contents: 'one' }), /Write e\.txt: 3 characters, 1 line\./);
  t.regex(textOf('writeFile', { filePath: 'f.txt', contents: '' }), /Write f\.txt: 0 characters, 0 lines\./);
  // A long line is shown whole: what follows at its end runs too.
  const hidden = `echo ${'a'.repeat(1000)}; touch /tmp/x`;
  const long = textOf('runCommand', { command: hidden });
  t.true(long.includes(hidden));
  t.true(long.startsWith('Approval needed: run a long command for alice?'), 'the title shows no part of a long command');
});

test('a block holding backticks is fenced by more of them, so it cannot close its fence early', t => {
  const text = textOf('writeFile', { filePath: 'README.md', contents: 'Run:\n```sh\nrm -rf /\n```\n' });
  t.true(text.includes('whole:\n````\nRun:\n```sh\nrm -rf /\n```\n````'), text);
  const ticked = textOf('runCommand', { command: 'echo `id`' });
  t.true(ticked.startsWith('Approval needed: run `` echo `id` `` for alice?'), ticked);
});

test('a character that would not show is written as its code, so nothing hides what runs', t => {
  // A carriage return, a right-to-left override and a zero-width space could make a line read otherwise.
  const text = textOf('runCommand', { command: 'echo safe\r\u202etouch /tmp/x\u200b' });
  t.true(text.includes('\necho safe\\u{d}\\u{202e}touch /tmp/x\\u{200b}\n'), text);
  t.is(showingEverything('tab\there, newline stays'), 'tab\there, newline stays');
});

test('arguments that hold a secret, or too much to read, are refused before anyone is asked', t => {
  t.is(unshownArguments({ command: 'ls -la' }, redact), undefined);
  // fae's own secret, and a credential's shape (the redaction trick: "api-key=" hid what ran).
  t.regex(unshownArguments({ command: `curl -H 'x: ${SECRET}'` }, redact) ?? '', /hold what looks like a secret/);
  t.regex(unshownArguments({ command: 'echo api-key=$(touch$IFS/tmp/x)' }, redact) ?? '', /hold what looks like a secret/);
  t.regex(unshownArguments({ edits: [{ oldText: 'a', newText: `key ${SECRET}` }] }, redact) ?? '', /secret/);
  t.regex(unshownArguments({ contents: 'x'.repeat(SHOWN_ARGUMENT_CHARS + 1) }, redact) ?? '', /too long for the host to read whole/);
  t.is(durationText(600_000), '10 minutes');
  t.is(durationText(1000), '1 second');
  t.is(durationText(250), '250 ms');
});
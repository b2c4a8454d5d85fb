// The host's reports of trouble in others' turns: once per kind per ten
// minutes (a fake clock here), and the first words that name a message.
import test from 'ava';
import { makeHostReports, REPORT_EVERY_MS } from '../src/agent/host/host-reports.js';
import { firstWords, turnFailedNotice, type Subject } from '../src/agent/turn/closing-notices.js';
import { makeLogger } from '../src/logging/log.js';

const subject: Subject = harden({ number: 3n, sender: 'alice', about: '"hi"', fromHost: false });

const start = () => {
  let now = 1_000_000;
  const sent: string[] = [];
  const reports = makeHostReports({
    send: async text => void sent.push(text),
    logger: makeLogger({ redact: text => text, debug: false, write: () => {} }),
    now: () => now,
  });
  return { reports, sent, pass: (ms: number) => void (now += ms) };
};

test('one report per kind of trouble per ten minutes', async t => {
  const { reports, sent, pass } = start();
  const unreachable = turnFailedNotice('unreachable', 'cannot reach the LLM at http://llm/v1', subject);
  await reports.report(unreachable);
  pass(60_000);
  await reports.report(unreachable);
  t.is(sent.length, 1, 'the same kind a minute later is not reported');
  await reports.report(turnFailedNotice('timeout', 'the LLM at http://llm/v1 did not answer', subject));
  t.is(sent.length, 2, 'another kind is');
  pass(REPORT_EVERY_MS);
  await reports.report(unreachable);
  t.is(sent.length, 3, 'ten minutes on, the first kind is reported again');
  t.true(sent[0].startsWith(`I could not answer the message "hi" from alice: cannot reach the LLM at http://llm/v1\n\n`));
});

test('a host that read the detail as its answer is not told again within ten minutes', async t => {
  const { reports, sent, pass } = start();
  const notice = turnFailedNotice('refused', 'the LLM denied access', subject);
  reports.told(notice);
  await reports.report(notice);
  t.deepEqual(sent, []);
  pass(REPORT_EVERY_MS);
  await reports.report(notice);
  t.is(sent.length, 1);
});

test('a refused report is logged, never thrown', async t => {
  const lines: string[] = [];
  const reports = makeHostReports({
    send: async () => {
      throw Error('no host here');
    },
    logger: makeLogger({ redact: text => text, debug: false, write: line => lines.push(line) }),
  });
  await t.notThrowsAsync(reports.report(turnFailedNotice('failed', 'oops', subject)));
  t.true(lines.some(line => line.includes('host-report-failed')));
});

test('a message is named by its first words, cut at a word', t => {
  t.is(firstWords('what is the weather in Paris tomorrow?'), '"what is the weather in…"');
  t.is(firstWords('  hello\n  there  '), '"hello there"');
  t.is(firstWords('x'.repeat(40)), `"${'x'.repeat(24)}…"`);
  t.is(firstWords(' \n '), undefined);
});

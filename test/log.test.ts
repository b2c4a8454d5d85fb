// The event log's lines (src/logging/log.ts): one line per event, its
// prefix, level and name, then each field that has a value, as written
// or quoted, cut when long, and the whole line redacted.
import test from 'ava';
import { makeLogger } from '../src/logging/log.js';
import { makeRedactor } from '../src/logging/redact.js';

const capture = (prefix?: string) => {
  const lines: string[] = [];
  const logger = makeLogger({ redact: makeRedactor(['tok-123456789']), write: line => lines.push(line), ...(prefix === undefined ? {} : { prefix }) });
  return { lines, logger };
};

test('an event is its prefix, name and fields; a warning says so; a field without a value is left out', t => {
  const { lines, logger } = capture();
  logger.event('message-received', { message: 12n, from: 'HOST', type: 'package', skipped: undefined });
  logger.warn('tool-failed', { tool: 'list', error: Error('no such name') });
  logger.event('fae-started');
  t.deepEqual(lines, [
    '[fae] message-received message=12 from=HOST type=package',
    '[fae] warning tool-failed tool=list error="no such name"',
    '[fae] fae-started',
  ]);
});

test('a field with spaces is quoted, a long one cut, and a secret anywhere in the line blanked', t => {
  const { lines, logger } = capture('[fae helper]');
  logger.event('turn-failed', { reason: 'it said tok-123456789 twice', long: 'x'.repeat(300) });
  t.is(lines[0], `[fae helper] turn-failed reason="it said [redacted] twice" long=${'x'.repeat(200)}…`);
});

test('with no prefix, a line opens with its level or its name', t => {
  const { lines, logger } = capture('');
  logger.event('started', { at: 1 });
  logger.warn('slow');
  t.deepEqual(lines, ['started at=1', 'warning slow']);
});

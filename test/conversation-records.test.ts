// checkRecord (src/conversations/records.ts) on summary records: the
// optional list of ids folded into the summary is checked like the rest.
import test from 'ava';
import { checkRecord, RECORD_VERSION } from '../src/conversations/records.js';

const summary = (fields: Record<string, unknown>) =>
  harden({
    v: RECORD_VERSION,
    kind: 'summary',
    correspondent: 'alice-id',
    thread: 'main',
    seq: 4,
    text: 'Alice asked about walnuts.',
    turns: [{ seq: 3, messageId: 'm3', messages: [{ role: 'user', content: 'hello' }] }],
    ...fields,
  });

test('a summary may list the ids folded into it, or none', t => {
  t.deepEqual(checkRecord(summary({ earlier: ['m1', 'm2'] }), 'n4', 'alice-id', 'main'), summary({ earlier: ['m1', 'm2'] }));
  t.is(checkRecord(summary({}), 'n4', 'alice-id', 'main').kind, 'summary');
});

test('a summary whose folded ids are not strings is refused, with the reason', t => {
  t.throws(() => checkRecord(summary({ earlier: ['m1', 2] }), 'n4', 'alice-id', 'main'), {
    message: /node "n4" has malformed earlier message ids/,
  });
  t.throws(() => checkRecord(summary({ earlier: 'm1' }), 'n4', 'alice-id', 'main'), {
    message: /malformed earlier message ids/,
  });
});

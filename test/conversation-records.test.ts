// checkRecord (src/conversations/store/records.ts) on summary records: the
// optional list of ids folded into the summary is checked like the rest;
// checkNode on chunks of turns: each turn checked, in sequence, as its own;
// nodeValue and parseNode: a node holds its record's JSON text;
// redactMessage: a message is stored redacted, copied only when it must be.
import test from 'ava';
import { passStyleOf, type Passable } from '@endo/marshal';
import { checkNode, checkRecord, nodeValue, parseNode, RECORD_VERSION, redactMessage, type TurnRecord } from '../src/conversations/store/records.js';
import { makeRedactor } from '../src/logging/redact.js';
import type { ChatMessage } from '../providers/types.js';

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

const turn = (seq: number): TurnRecord =>
  harden({
    v: RECORD_VERSION,
    kind: 'turn',
    correspondent: 'alice-id',
    thread: 'main',
    seq,
    messageId: `m${seq}`,
    messages: [{ role: 'user', content: `hello ${seq}` }],
  });

/** What a node holds, read back as a record. */
const nodeOf = (records: readonly TurnRecord[]) => parseNode(nodeValue(records), 'n') as Record<string, unknown>;

test('a chunk holds consecutive turns and gives them back checked; one turn is stored as its record', t => {
  t.deepEqual(nodeOf([turn(5)]), turn(5));
  const chunk = nodeOf([turn(5), turn(6), turn(7)]);
  t.is(chunk.kind, 'chunk');
  t.deepEqual(checkNode(chunk, 'n5', 'alice-id', 'main'), [turn(5), turn(6), turn(7)]);
  t.deepEqual(checkNode(turn(5), 'n5', 'alice-id', 'main'), [turn(5)]);
});

/** Every object in `value`, itself included. */
const objectsIn = (value: unknown): object[] =>
  typeof value === 'object' && value !== null ? [value, ...Object.values(value).flatMap(objectsIn)] : [];

test('a node is the JSON text of its record, read back frozen all the way down; a record stored as such is read as it is', t => {
  const text = nodeValue([turn(5), turn(6)]);
  t.is(typeof text, 'string');
  const parsed = parseNode(text, 'n5');
  const objects = objectsIn(parsed);
  t.is(objects.length, 8, 'the chunk, its list of turns, and each turn, its messages and its message');
  t.true(objects.every(object => Object.isFrozen(object)));
  t.is(passStyleOf(parsed as Passable), 'copyRecord', 'plain data, as passable as a hardened record');
  const records = checkNode(parsed, 'n5', 'alice-id', 'main');
  t.deepEqual(records, [turn(5), turn(6)]);
  t.true(records.flatMap(objectsIn).every(object => Object.isFrozen(object)));
  const stored = turn(5);
  t.is(parseNode(stored, 'n5'), stored);
  t.throws(() => parseNode(text.slice(0, 30), 'n5'), { message: /node "n5" holds text that is not a record/ });
});

test('a chunk that is out of place, out of order, foreign or malformed is refused, with the reason', t => {
  const chunk = nodeOf([turn(5), turn(6)]);
  t.throws(() => checkNode(chunk, 'n4', 'alice-id', 'main'), { message: /node "n4" has sequence 5/ });
  t.throws(() => checkNode(harden({ ...chunk, turns: [...(chunk.turns as unknown[])].reverse() }), 'n5', 'alice-id', 'main'), { message: /turn 0 has sequence 6/ });
  t.throws(() => checkNode(chunk, 'n5', 'bob-id', 'main'), { message: /belongs to another conversation/ });
  t.throws(() => checkNode(harden({ ...chunk, turns: [(chunk.turns as unknown[])[0], { seq: 6, messages: [] }] }), 'n5', 'alice-id', 'main'), {
    message: /node "n5" turn 1 is malformed/,
  });
  t.throws(() => checkNode(harden({ ...chunk, turns: [(chunk.turns as unknown[])[0]] }), 'n5', 'alice-id', 'main'), { message: /malformed chunk/ });
});

test('a message is kept as redacted: itself when it is so already, else a copy with the secret blanked and only the kept fields', t => {
  const redact = makeRedactor(['hunter2-secret']);
  const call = { id: 'call_1', type: 'function' as const, function: { name: 'lookup', arguments: '{"petName":"notes"}' } };
  const plain = harden({ role: 'assistant' as const, content: 'Looking.', tool_calls: [call] });
  t.is(redactMessage(plain, redact), plain, 'nothing to change: not copied');
  const result = harden({ role: 'tool' as const, content: 'found', tool_call_id: 'call_1', name: 'lookup' });
  t.is(redactMessage(result, redact), result);

  const secret = harden({ role: 'tool' as const, content: 'the key is hunter2-secret', tool_call_id: 'call_1', name: 'lookup' });
  t.deepEqual(redactMessage(secret, redact), { role: 'tool', content: 'the key is [redacted]', tool_call_id: 'call_1', name: 'lookup' });
  const inArguments = harden({ ...plain, tool_calls: [{ ...call, function: { name: 'store', arguments: '{"value":"hunter2-secret"}' } }] });
  t.is(redactMessage(inArguments, redact).tool_calls?.[0].function.arguments, '{"value":"[redacted]"}');
  const extra = harden({ role: 'user', content: 'hi', name: undefined, reasoning: 'x' } as unknown as ChatMessage);
  const copied = redactMessage(extra, redact);
  t.deepEqual(copied, { role: 'user', content: 'hi' }, 'no undefined field, nothing a stored message does not keep');
  t.true(Object.isFrozen(copied));
  const noCalls = harden({ role: 'assistant' as const, content: 'done', tool_calls: [] });
  t.deepEqual(redactMessage(noCalls, redact), { role: 'assistant', content: 'done' }, 'an empty list of calls is dropped');
});

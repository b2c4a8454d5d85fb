// The usage ledger and its prices (src/usage/): FAE_PRICES read or refused
// with a clear error, the built-in table's models, costs with cached
// tokens, status() bounded to the 20 largest correspondents and the rest
// as one, the stored record bounded too, and read back added to what was
// counted meanwhile.
import test from 'ava';
import { builtInPrice, costOf, readPrices } from '../src/usage/prices.js';
import {
  correspondentKeyOf,
  KEPT_CORRESPONDENTS,
  makeUsageLedger,
  usageRecordIn,
  type UsageSpent,
} from '../src/usage/usage-ledger.js';
import { readFaeConfig } from '../src/agent/config.js';

const spent = (requests: number, tokens = 1000): UsageSpent =>
  harden({ requests, inputTokens: tokens, cachedInputTokens: tokens / 2, cacheWriteInputTokens: 0, outputTokens: tokens / 10 });

test('FAE_PRICES: input and output, with cached and cache-write defaulting to the input price', t => {
  t.deepEqual(readPrices('input=3,cached=0.3,output=15'), { input: 3, cached: 0.3, cacheWrite: 3, output: 15 });
  t.deepEqual(readPrices(' input = 5 , cache-write=6.25, cached=0.5,output=25 '), {
    input: 5,
    cached: 0.5,
    cacheWrite: 6.25,
    output: 25,
  });
  t.deepEqual(readPrices('output=0,input=0'), { input: 0, cached: 0, cacheWrite: 0, output: 0 });
  t.is(readPrices(undefined), undefined);
  t.is(readPrices('  '), undefined);
  t.is(readFaeConfig({ FAE_PRICES: 'input=1,output=2' }).prices?.output, 2);
});

test('FAE_PRICES errors name the setting, show the format and quote what is wrong', t => {
  const format = 'FAE_PRICES must be like "input=3,cached=0.3,output=15" (US dollars per million tokens; cache-write=3.75 may follow)';
  const cases: readonly (readonly [string, string])[] = [
    ['input=3,output=15,input=4', `${format}; "input" is given twice`],
    ['input=3', `${format}; input and output are required, in "input=3"`],
    ['cached=1,output=2', `${format}; input and output are required, in "cached=1,output=2"`],
    ['input=3,output=fifteen', `${format}; "fifteen" is not a price (a number, 0 or more)`],
    ['input=-1,output=2', `${format}; "-1" is not a price (a number, 0 or more)`],
    ['input=,output=2', `${format}; "" is not a price (a number, 0 or more)`],
    ['input=1,output=2,write=3', `${format}; "write=3" is not one of input=, cached=, cache-write=, output=`],
    ['3,15', `${format}; "3" is not one of input=, cached=, cache-write=, output=`],
    ['input=1=2,output=2', `${format}; "input=1=2" is not one of input=, cached=, cache-write=, output=`],
    ['$3 in, $15 out', `${format}; "$3 in" is not one of input=, cached=, cache-write=, output=`],
  ];
  for (const [text, message] of cases) {
    t.throws(() => readPrices(text), { message }, text);
    t.throws(() => readFaeConfig({ FAE_PRICES: text }), { message });
  }
});

test('the built-in table knows a few models, dated names by their family, and not their smaller siblings', t => {
  t.is(builtInPrice('claude-opus-4-5-20251101')?.output, 25);
  t.is(builtInPrice('claude-opus-4-5')?.cached, 0.5);
  t.is(builtInPrice('claude-sonnet-4-5')?.cacheWrite, 3.75);
  t.is(builtInPrice('gpt-4.1-2025-04-14')?.input, 2);
  t.is(builtInPrice('gpt-4.1-mini'), undefined);
  t.is(builtInPrice('gpt-4o-mini')?.cached, 0.075);
  t.is(builtInPrice('gpt-4x1'), undefined, 'a dot in a name is a dot');
  t.is(builtInPrice('qwen3'), undefined);
  t.is(builtInPrice('claude-opus-5')?.input, 5);
  t.is(builtInPrice('claude-sonnet-5')?.cached, 0.2);
  t.is(builtInPrice('claude-sonnet-5-5'), undefined, 'not its family: Sonnet 5.5 is not Sonnet 5');
});

test('a cost counts plain, cached and written input at their own prices', t => {
  const prices = { input: 3, cached: 0.3, cacheWrite: 3.75, output: 15 };
  const cost = costOf({ inputTokens: 10_000, cachedInputTokens: 6_000, cacheWriteInputTokens: 2_000, outputTokens: 1_000 }, prices);
  // 2,000 plain × 3 + 6,000 × 0.3 + 2,000 × 3.75 + 1,000 × 15, per million.
  t.is(Math.round(cost * 1e6), 6_000 + 1_800 + 7_500 + 15_000);
});

test('status() lists the 20 largest correspondents by name, or unnamed by a hash, and the rest as one', t => {
  const ledger = makeUsageLedger({ pricesFor: model => (model === 'priced' ? readPrices('input=1,output=1') : undefined) });
  for (let i = 1; i <= 25; i += 1) {
    ledger.record(`id-of-correspondent-${i}`, i % 2 === 0 ? `friend-${i}` : undefined, 'priced', spent(1, i * 100));
  }
  ledger.record('id-of-correspondent-25', undefined, 'unpriced', spent(2, 100));
  const status = ledger.status();
  t.is(status.correspondents.length, 20);
  t.is(status.correspondents[0].name, `unnamed-${correspondentKeyOf('id-of-correspondent-25').slice(0, 8)}`);
  t.is(status.correspondents[0].requests, 3);
  t.is(status.correspondents[0].unpricedRequests, 2);
  t.is(status.correspondents[1].name, 'friend-24');
  t.deepEqual(
    { correspondents: status.others.correspondents, requests: status.others.requests },
    { correspondents: 5, requests: 5 },
  );
  t.is(status.total.requests, 27);
  t.is(status.total.unpricedRequests, 2);
  t.deepEqual(status.models.map(m => [m.model, m.requests]), [['priced', 25], ['unpriced', 2]]);
  t.false(JSON.stringify(status).includes('id-of-correspondent'), 'no id, in status() or …');
  t.false(ledger.toText().includes('id-of-correspondent'), '… in what is stored');
});

test('the stored record keeps the 200 largest correspondents apart; the smallest are added up', t => {
  const ledger = makeUsageLedger({ pricesFor: () => undefined });
  // Each newcomer is the largest yet: each one past 200 folds the smallest.
  for (let i = 1; i <= KEPT_CORRESPONDENTS + 10; i += 1) ledger.record(`c${i}`, undefined, 'm', spent(1, i));
  // A small newcomer is folded itself, and a known one grows in place.
  ledger.record('small', undefined, 'm', spent(1, 1));
  ledger.record('c11', undefined, 'm', spent(1, 1000));
  const record = usageRecordIn(ledger.toText());
  t.is(record.correspondents.length, KEPT_CORRESPONDENTS);
  t.deepEqual(
    record.correspondents.map(entry => entry.inputTokens).sort((a, b) => a - b).slice(0, 3),
    [12, 13, 14],
    'the smallest kept is c12: c1 to c10 and the small newcomer were folded',
  );
  t.is(record.correspondents.find(entry => entry.key === correspondentKeyOf('c11'))?.inputTokens, 1011);
  t.is(record.others.correspondents, 11);
  t.is(record.others.requests, 11);
  t.is(ledger.status().total.requests, KEPT_CORRESPONDENTS + 12, 'nothing is lost from the totals');
});

test('a stored record read back is added to what was counted meanwhile, and a foreign value is refused', t => {
  const stored = makeUsageLedger({ pricesFor: () => undefined, now: () => new Date('2026-01-01T00:00:00Z') });
  stored.record('alice', 'alice', 'm', spent(2));
  const text = stored.toText();
  const record = usageRecordIn(text);
  t.deepEqual(usageRecordIn(JSON.parse(text)), record, 'a record stored as such (earlier versions) reads the same');
  const ledger = makeUsageLedger({ pricesFor: () => undefined });
  ledger.record('alice', 'alice-renamed', 'm', spent(1));
  ledger.record('bob', undefined, 'm', spent(1));
  ledger.restore(record);
  const status = ledger.status();
  t.is(status.since, '2026-01-01T00:00:00.000Z');
  t.deepEqual(status.correspondents.map(c => [c.name, c.requests]), [['alice-renamed', 3], [`unnamed-${correspondentKeyOf('bob').slice(0, 8)}`, 1]]);
  for (const foreign of [undefined, { kind: 'fae-usage', version: 2 }, { ...record, correspondents: [{ key: 1 }] }, { ...record, others: {} }]) {
    t.throws(() => usageRecordIn(foreign), { message: /usage record/ });
  }
  t.throws(() => usageRecordIn(text.slice(0, -10)), { message: /text that is not JSON/ }, 'text cut off');
  t.throws(() => usageRecordIn('"usage"'), { message: /not fae's usage record/ }, 'JSON of something else');
});

// Writing the usage totals (src/usage/usage-store.ts): turns that end
// within the write gap are written together, so that many correspondents
// writing make one write of the (up to 30 KB) record per gap, not one per
// turn; nothing counted is left unwritten. The record is stored as JSON
// text; one stored as a record, as earlier versions did, is read back.
import test from 'ava';
import { Far } from '@endo/far';
import { makeLogger } from '../src/logging/log.js';
import { makeUsageLedger, usageRecordIn, type UsageSpent } from '../src/usage/usage-ledger.js';
import { makeUsageStore } from '../src/usage/usage-store.js';
import type { GuestPowers, Ref } from '../src/daemon/endo-types.js';

const spent: UsageSpent = harden({ requests: 1, inputTokens: 100, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 10 });

/** A directory holding `first` (nothing by default), that keeps what is stored and counts the writes. */
const makeDirectory = (first?: unknown) => {
  const written: unknown[] = first === undefined ? [] : [first];
  const powers = Far('UsageDirectory', {
    has: async () => written.length > 0,
    lookup: async () => written.at(-1),
    storeValue: async (value: unknown) => {
      written.push(value);
    },
  });
  return { written, powers: powers as unknown as Ref<GuestPowers> };
};

const quietLogger = () => makeLogger({ redact: text => text, write: () => {} });

const aTurnLater = () => new Promise(resolve => setTimeout(resolve, 0));

test('turns that end within the write gap are written together, with all they counted', async t => {
  const { written, powers } = makeDirectory();
  const ledger = makeUsageLedger({ pricesFor: () => undefined });
  const store = makeUsageStore(powers, ledger, { logger: quietLogger(), writeGapMs: 2000 });
  store.start();
  await store.settled();
  ledger.record('alice', 'alice', 'model', spent);
  store.save();
  await store.settled();
  t.is(written.length, 1, 'the first turn after a quiet spell is written at once');
  for (const who of ['bob', 'carol', 'dave', 'erin']) {
    ledger.record(who, who, 'model', spent);
    store.save();
    // Long enough for a write to start and end, had each turn its own.
    await aTurnLater();
  }
  t.is(store.state(), 'unsaved');
  await store.settled();
  t.is(written.length, 2, 'the four turns that came within the gap make one write');
  t.is(store.state(), 'saved');
  t.is(typeof written[1], 'string', 'stored as text');
  t.deepEqual(
    usageRecordIn(written[1]).correspondents.map(entry => [entry.name, entry.requests]),
    [['alice', 1], ['bob', 1], ['carol', 1], ['dave', 1], ['erin', 1]],
  );
});

test('totals stored as a record, as earlier versions did, are read back and then stored as text', async t => {
  const earlier = makeUsageLedger({ pricesFor: () => undefined, now: () => new Date('2026-01-01T00:00:00Z') });
  earlier.record('alice', 'alice', 'model', spent);
  const { written, powers } = makeDirectory(harden(JSON.parse(earlier.toText())));
  const ledger = makeUsageLedger({ pricesFor: () => undefined });
  const store = makeUsageStore(powers, ledger, { logger: quietLogger() });
  store.start();
  await store.settled();
  t.is(ledger.status().since, '2026-01-01T00:00:00.000Z');
  ledger.record('alice', 'alice', 'model', spent);
  store.save();
  await store.settled();
  t.is(written.length, 2);
  const stored = usageRecordIn(written[1]);
  t.deepEqual(stored.correspondents.map(entry => [entry.name, entry.requests]), [['alice', 2]]);
});

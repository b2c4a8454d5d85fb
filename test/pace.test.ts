// The pace guard on its own (src/agent/limits/pace.ts), on a clock of its own:
// the limit per minute, the pause, the host exempt, and a table that holds
// only the correspondents of the last minute.
import test from 'ava';
import { makePace } from '../src/agent/limits/pace.js';
import { makeLogger } from '../src/logging/log.js';

const makeClockedPace = (perMinute: number, pauseMs: number) => {
  let at = 1_000_000;
  const told: string[] = [];
  const pace = makePace({
    settings: { perMinute, pauseMs },
    logger: makeLogger({ redact: text => text, write: () => {} }),
    tellHost: async text => {
      told.push(text);
    },
    now: () => at,
  });
  return { pace, told, advance: (ms: number) => (at += ms) };
};

test('past the limit within a minute: one notice, then quiet until the pause is over', t => {
  const { pace, told, advance } = makeClockedPace(3, 600_000);
  const checks = () => pace.check('bot', 'bot', false);
  t.deepEqual([checks(), checks(), checks()], ['ok', 'ok', 'ok']);
  t.is(checks(), 'notice');
  t.is(told.length, 1);
  t.is(checks(), 'quiet');
  advance(599_999);
  t.is(checks(), 'quiet');
  advance(1);
  t.is(checks(), 'ok', 'the pause is over');
  t.is(told.length, 1);
});

test("a person's pace is never paused; the host never; 0 turns it off", t => {
  const { pace, advance } = makeClockedPace(3, 600_000);
  for (let i = 0; i < 20; i += 1) {
    t.is(pace.check('person', 'person', false), 'ok');
    advance(21_000);
    t.is(pace.check('host', 'host', true), 'ok');
  }
  const off = makeClockedPace(0, 600_000);
  for (let i = 0; i < 20; i += 1) t.is(off.pace.check('bot', 'bot', false), 'ok');
});

test('the table holds only the correspondents of the last minute', t => {
  const { pace, advance } = makeClockedPace(8, 600_000);
  for (let i = 0; i < 5_000; i += 1) {
    pace.check(`correspondent-${i}`, 'someone', false);
    advance(100);
  }
  // 600 correspondents wrote within the last minute (one every 100 ms).
  t.true(pace.size() <= 601, String(pace.size()));
});

test('a paused correspondent stays paused however many others write meanwhile', t => {
  const { pace, advance } = makeClockedPace(3, 600_000);
  for (let i = 0; i < 4; i += 1) pace.check('bot', 'bot', false);
  t.is(pace.check('bot', 'bot', false), 'quiet');
  // A flood of new correspondents, far past the table of recent starts.
  for (let i = 0; i < 5_000; i += 1) {
    pace.check(`someone-${i}`, 'someone', false);
    advance(10);
  }
  t.true(pace.size() <= 1024);
  t.is(pace.check('bot', 'bot', false), 'quiet', 'still paused 50 s later');
  advance(600_000);
  t.is(pace.check('bot', 'bot', false), 'ok', 'the pause is over');
  t.is(pace.paused(), 0, 'an ended pause is let go');
});

test('the host hears of pauses at most once per ten minutes, naming who was paused meanwhile', t => {
  const { pace, told, advance } = makeClockedPace(2, 60_000);
  const flood = (name: string) => {
    for (let i = 0; i < 3; i += 1) pace.check(name, name, false);
  };
  flood('bot-1');
  t.is(told.length, 1);
  t.regex(told[0], /^Mail from bot-1 came faster than a person writes/);
  for (let i = 2; i <= 30; i += 1) flood(`bot-${i}`);
  t.is(told.length, 1, 'twenty-nine more pauses, no more mail to the host yet');
  advance(10 * 60_000);
  flood('bot-31');
  t.is(told.length, 2);
  t.regex(told[1], /^Mail from bot-2, bot-3, .*bot-21 and 10 others came faster/);
});

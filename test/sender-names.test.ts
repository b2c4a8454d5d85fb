// makeSenderNames (src/agent/authority/sender-names.ts) against a watch the test
// drives: what is kept, and what drops it.
import test from 'ava';
import { makePromiseKit } from '@endo/promise-kit';
import { makeSenderNames } from '../src/agent/authority/sender-names.js';
import type { OwnNamesListener, OwnNamesWatch } from '../src/daemon/own-names.js';

const ALICE = 'a1:n1';
const BOB = 'b2:n1';

const makeWatch = () => {
  const listeners = new Set<OwnNamesListener>();
  let following = true;
  const watch: OwnNamesWatch = {
    start: () => {},
    stop: () => {},
    listen: listener => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    isFollowing: () => following,
  };
  return {
    watch,
    add: (name: string, id: string) => listeners.forEach(l => l.onChange?.({ add: name, id })),
    remove: (name: string) => listeners.forEach(l => l.onChange?.({ remove: name })),
    lose: () => {
      following = false;
      listeners.forEach(l => l.onLost?.());
    },
    regain: () => {
      following = true;
    },
  };
};

const makeDaemonNames = () => {
  const names = new Map<string, string[]>([[ALICE, ['alice']], [BOB, ['bob']]]);
  const reads: string[] = [];
  return {
    names,
    reads,
    read: async (from: string) => {
      reads.push(from);
      return names.get(from) ?? [];
    },
  };
};

test('a sender is read once; a change naming another sender keeps it', async t => {
  const w = makeWatch();
  const daemon = makeDaemonNames();
  const senderNames = makeSenderNames(daemon.read, w.watch);
  t.deepEqual(await senderNames(ALICE), ['alice']);
  t.deepEqual(await senderNames(ALICE), ['alice']);
  w.add('tools', 'c3:n1');
  w.add('bobby', BOB);
  t.deepEqual(await senderNames(ALICE), ['alice']);
  t.deepEqual(daemon.reads, [ALICE]);
});

test('a name bound to the sender, or removed from it, makes fae read again', async t => {
  const w = makeWatch();
  const daemon = makeDaemonNames();
  const senderNames = makeSenderNames(daemon.read, w.watch);
  await senderNames(ALICE);
  daemon.names.set(ALICE, ['alice', 'friend']);
  w.add('friend', ALICE);
  t.deepEqual(await senderNames(ALICE), ['alice', 'friend']);
  daemon.names.set(ALICE, ['alice']);
  w.remove('friend');
  t.deepEqual(await senderNames(ALICE), ['alice']);
  // A name fae never saw bound could have named anyone.
  await senderNames(BOB);
  w.remove('stranger');
  await senderNames(BOB);
  t.deepEqual(daemon.reads, [ALICE, ALICE, ALICE, BOB, BOB]);
});

test('nothing is kept while the watch is lost, nor an answer read across a change', async t => {
  const w = makeWatch();
  const daemon = makeDaemonNames();
  let slow: ReturnType<typeof makePromiseKit<void>> | undefined;
  const senderNames = makeSenderNames(async from => {
    await slow?.promise;
    return daemon.read(from);
  }, w.watch);
  await senderNames(ALICE);
  w.lose();
  await senderNames(ALICE);
  await senderNames(ALICE);
  t.is(daemon.reads.length, 3);
  w.regain();
  slow = makePromiseKit<void>();
  const reading = senderNames(ALICE);
  w.add('friend', ALICE);
  slow.resolve();
  await reading;
  slow = undefined;
  await senderNames(ALICE);
  await senderNames(ALICE);
  t.is(daemon.reads.length, 5);
});

test('a name bound anew after every turn (the usage record) leaves nothing behind per change', async t => {
  const w = makeWatch();
  const daemon = makeDaemonNames();
  const senderNames = makeSenderNames(daemon.read, w.watch);
  const slow = makePromiseKit<void>();
  const slowNames = makeSenderNames(async from => {
    await slow.promise;
    return daemon.read(from);
  }, w.watch);
  w.add('usage', 'u0:n1');
  const reading = slowNames(BOB);
  t.is(slowNames.readsUnderWay(), 1);
  for (let i = 1; i <= 10_000; i += 1) {
    w.remove('usage');
    w.add('usage', `u${i}:n1`);
    t.deepEqual(await senderNames(ALICE), ['alice']);
  }
  slow.resolve();
  t.deepEqual(await reading, ['bob']);
  // Only reads under way hear of changes; none is tracked once they end.
  t.is(slowNames.readsUnderWay(), 0);
  t.is(senderNames.readsUnderWay(), 0);
  // Changes that could not touch a sender keep what was read for it, also across a read.
  await slowNames(BOB);
  t.deepEqual(daemon.reads, [ALICE, BOB]);
});

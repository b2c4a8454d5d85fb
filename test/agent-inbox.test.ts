// followInbox (src/agent/turn/inbox.ts) against a reader the test feeds by
// hand, so the order of replays, duplicates and edits is exact: each
// number is answered once, when done, with its latest text; a revision
// during a turn that has not answered restarts it; a revision after the
// answer starts nothing. The same behaviour through the local daemon's
// August dialect is in agent-dialects.test.ts.
import test from 'ava';
import { makePromiseKit } from '@endo/promise-kit';
import type { InboxMessage } from '../src/daemon/adapter.js';
import { BACKLOG_LIMIT, UNFINISHED_LIMIT, followInbox, turnCancellation } from '../src/agent/turn/inbox.js';
import type { TurnSignals } from '../src/agent/turn/inbox.js';
import { makeCancellation } from '../src/agent/turn/cancellation.js';

const SELF = 'self-id';

/** A reader whose messages the test pushes; next() waits for the next push. */
const makeFedReader = () => {
  const queue: InboxMessage[] = [];
  let waiter: ((result: IteratorResult<InboxMessage>) => void) | undefined;
  let returned = 0;
  const iterator: AsyncIterableIterator<InboxMessage> = {
    next: () => {
      const value = queue.shift();
      if (value !== undefined) return Promise.resolve({ done: false, value });
      return new Promise(resolve => {
        waiter = resolve;
      });
    },
    return: async () => {
      returned += 1;
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  const push = (...messages: InboxMessage[]) => {
    for (const message of messages) {
      if (waiter) {
        const resolve = waiter;
        waiter = undefined;
        resolve({ done: false, value: message });
      } else {
        queue.push(message);
      }
    }
  };
  const daemon = {
    followMessages: () => iterator,
    isOwnMessage: (message: { from: string }) => message.from === SELF,
  };
  return { daemon, push, returned: () => returned };
};

let clock = 0;
const message = (number: bigint, text: string, fields: Partial<InboxMessage> = {}): InboxMessage => {
  clock += 1;
  return harden({
    number,
    type: 'package',
    from: 'alice-id',
    to: SELF,
    date: new Date(clock * 1000).toISOString(),
    messageId: `m${number}`,
    replyTo: undefined,
    done: true,
    senderId: 'alice-id',
    strings: [text],
    names: [],
    ids: [],
    ...fields,
  });
};
/** The same message edited: a new date, new text, maybe not done. */
const edit = (earlier: InboxMessage, text: string, done: boolean): InboxMessage => {
  clock += 1;
  return harden({ ...earlier, strings: [text], done, date: new Date(clock * 1000).toISOString() });
};

const settle = () => new Promise(resolve => setTimeout(resolve, 0));
const textOf = (m: InboxMessage) => m.strings?.[0];

test('each number is answered once; duplicates and own copies start nothing', async t => {
  const { daemon, push, returned } = makeFedReader();
  const cancel = makePromiseKit<Error>();
  const answered: string[] = [];
  const ignored: string[] = [];
  const ownCopies: bigint[] = [];
  const first = message(1n, 'one');
  const following = followInbox(daemon, {
    cancelled: makeCancellation(cancel.promise),
    onMessage: async m => {
      answered.push(`${m.number} ${textOf(m)}`);
    },
    onIgnoredEdit: m => ignored.push(String(m.number)),
    onOwnMessage: m => ownCopies.push(m.number),
  });
  // A replay, the live copy of the same message, and fae's own reply.
  push(message(0n, 'ready', { from: SELF }), first, message(2n, 'two'), first, message(3n, 'mine', { from: SELF }));
  await settle();
  push(first, message(3n, 'mine', { from: SELF }));
  await settle();
  t.deepEqual(answered, ['1 one', '2 two']);
  t.deepEqual(ownCopies, [0n, 3n]);
  // The same revision again is no edit.
  t.deepEqual(ignored, []);
  cancel.resolve(Error('cancelled'));
  await following;
  t.is(returned(), 1);
});

test('a message not done waits, and is answered once with the text that is done', async t => {
  const { daemon, push } = makeFedReader();
  const cancel = makePromiseKit<Error>();
  const answered: string[] = [];
  const following = followInbox(daemon, {
    cancelled: makeCancellation(cancel.promise),
    onMessage: async m => {
      answered.push(String(textOf(m)));
    },
  });
  const placeholder = message(1n, '…', { done: false });
  push(placeholder);
  await settle();
  t.deepEqual(answered, []);
  push(edit(placeholder, 'Hello, wor', false));
  await settle();
  t.deepEqual(answered, []);
  push(edit(placeholder, 'Hello, world', true));
  await settle();
  t.deepEqual(answered, ['Hello, world']);
  cancel.resolve(Error('cancelled'));
  await following;
});

test('a revision during an unanswered turn restarts it on the final text; one after the answer is ignored', async t => {
  const { daemon, push } = makeFedReader();
  const cancel = makePromiseKit<Error>();
  const turns: string[] = [];
  const ignored: string[] = [];
  const turnStarted = [makePromiseKit<void>(), makePromiseKit<void>()];
  const following = followInbox(daemon, {
    cancelled: makeCancellation(cancel.promise),
    onMessage: async (m, signals) => {
      turns.push(String(textOf(m)));
      turnStarted[turns.length - 1]?.resolve();
      if (turns.length === 1) {
        // The first turn has not answered when the revision comes: it gives up.
        await signals.revised;
        return 'revised';
      }
      return 'answered';
    },
    onIgnoredEdit: m => ignored.push(String(textOf(m))),
  });
  // The placeholder looks finished on first delivery (done is true).
  const placeholder = message(1n, '…');
  push(placeholder);
  await turnStarted[0].promise;
  push(edit(placeholder, 'Hello, wor', false));
  await settle();
  t.deepEqual(turns, ['…']);
  const final = edit(placeholder, 'Hello, world', true);
  push(final);
  await turnStarted[1].promise;
  t.deepEqual(turns, ['…', 'Hello, world']);
  // Answered now: a later edit starts no turn, and is reported.
  push(edit(final, 'Hello, world!', true));
  await settle();
  t.deepEqual(turns, ['…', 'Hello, world']);
  t.deepEqual(ignored, ['Hello, world!']);
  cancel.resolve(Error('cancelled'));
  await following;
});

test('a number comes again long after its turn: a dismissed one starts nothing, a kept one reports its edits', async t => {
  const { daemon, push } = makeFedReader();
  const cancel = makePromiseKit<Error>();
  const answered: string[] = [];
  const ignored: string[] = [];
  const following = followInbox(daemon, {
    cancelled: makeCancellation(cancel.promise),
    // Even numbers are dismissed after their turn, odd ones stay in the inbox.
    onMessage: async m => {
      answered.push(String(m.number));
      return m.number % 2n === 0n ? 'dismissed' : 'answered';
    },
    onIgnoredEdit: m => ignored.push(String(m.number)),
  });
  const first = Array.from({ length: 600 }, (_, i) => message(BigInt(i), `q${i}`));
  push(...first);
  await settle();
  t.is(answered.length, 600);
  // The live feed's late copies of a long replay, then edits of two answered messages.
  push(...first.slice(0, 500), edit(first[7], 'q7 edited', true), edit(first[8], 'q8 edited', true));
  await settle();
  t.is(answered.length, 600);
  t.deepEqual(ignored, ['7']);
  push(message(600n, 'q600'));
  await settle();
  t.deepEqual(answered.slice(-1), ['600']);
  cancel.resolve(Error('cancelled'));
  await following;
});

test('a turn cancellation follows a revision only until the turn has answered', async t => {
  const never = new Promise<Error>(() => {});
  const revisedEarly = makePromiseKit<InboxMessage>();
  const early = turnCancellation(makeCancellation(never), { revised: revisedEarly.promise } as TurnSignals, () => false);
  revisedEarly.resolve(message(1n, 'x'));
  t.regex((await early.cancelled.promise).message, /revised/);
  t.true(early.revised());

  const revisedLate = makePromiseKit<InboxMessage>();
  const cancel = makePromiseKit<Error>();
  const late = turnCancellation(makeCancellation(cancel.promise), { revised: revisedLate.promise } as TurnSignals, () => true);
  revisedLate.resolve(message(1n, 'x'));
  await settle();
  t.false(late.cancelled.isCancelled());
  cancel.resolve(Error('stopped'));
  t.is((await late.cancelled.promise).message, 'stopped');
  t.false(late.revised());
});

test('ending a turn cancels nothing, and a cancellation after it no longer reaches the turn', async t => {
  const revised = makePromiseKit<InboxMessage>();
  const cancel = makePromiseKit<Error>();
  const agent = makeCancellation(cancel.promise);
  const turn = turnCancellation(agent, { revised: revised.promise } as TurnSignals, () => false);
  turn.end();
  await settle();
  t.false(turn.cancelled.isCancelled());
  cancel.resolve(Error('stopped'));
  revised.resolve(message(1n, 'x'));
  await agent.promise;
  await settle();
  t.false(turn.cancelled.isCancelled());
  t.false(turn.revised());
});

test('unfinished messages wait up to a bound; the oldest set aside is still answered once its final text comes', async t => {
  const { daemon, push } = makeFedReader();
  const cancel = makePromiseKit<Error>();
  const answered: string[] = [];
  const setAside: bigint[] = [];
  const following = followInbox(daemon, {
    cancelled: makeCancellation(cancel.promise),
    onMessage: async m => {
      answered.push(`${m.number} ${textOf(m)}`);
    },
    onSetAside: m => setAside.push(m.number),
  });
  const drafts = Array.from({ length: UNFINISHED_LIMIT + 2 }, (_, i) => message(BigInt(i + 1), 'draft', { done: false }));
  push(...drafts);
  await settle();
  t.deepEqual(setAside, [1n, 2n]);
  t.deepEqual(answered, []);
  push(edit(drafts[0], 'first, finished', true), edit(drafts.at(-1)!, 'last, finished', true));
  await settle();
  t.deepEqual(answered, ['1 first, finished', `${drafts.length} last, finished`]);
  cancel.resolve(Error('cancelled'));
  await following;
});

test('with a full backlog fae reads no more mail until a turn takes one up, and answers it all', async t => {
  const { daemon, push } = makeFedReader();
  const cancel = makePromiseKit<Error>();
  const answered: bigint[] = [];
  const firstTurn = makePromiseKit<void>();
  let pulled = 0;
  const next = daemon.followMessages().next;
  const counted = {
    ...daemon,
    followMessages: () => {
      const iterator = daemon.followMessages();
      return {
        ...iterator,
        next: () => {
          pulled += 1;
          return next();
        },
      };
    },
  };
  const following = followInbox(counted as typeof daemon, {
    cancelled: makeCancellation(cancel.promise),
    onMessage: async m => {
      // The first turn holds until the test has looked.
      if (answered.length === 0) await firstTurn.promise;
      answered.push(m.number);
    },
  });
  const total = BACKLOG_LIMIT + 10;
  push(...Array.from({ length: total }, (_, i) => message(BigInt(i + 1), `m${i + 1}`)));
  for (let i = 0; i < 20; i += 1) await settle();
  // One message is in its turn, BACKLOG_LIMIT wait, and no more is read.
  t.is(pulled, BACKLOG_LIMIT + 1);
  firstTurn.resolve();
  for (let i = 0; i < 50 && answered.length < total; i += 1) await settle();
  t.is(answered.length, total);
  t.deepEqual(answered.slice(0, 3), [1n, 2n, 3n]);
  cancel.resolve(Error('cancelled'));
  await following;
});

test('a turn just started goes first: fae reads on once it has answered, or while it waits', async t => {
  const { daemon, push } = makeFedReader();
  const cancel = makePromiseKit<Error>();
  let pulled = 0;
  const counted = {
    ...daemon,
    followMessages: () => {
      const iterator = daemon.followMessages();
      return { ...iterator, next: () => ((pulled += 1), iterator.next()) };
    },
  };
  const seen: string[] = [];
  const later = makePromiseKit<void>();
  const following = followInbox(counted as typeof daemon, {
    cancelled: makeCancellation(cancel.promise),
    onMessage: async (m, signals) => {
      if (m.number === 1n) {
        // The turn's own work, however many steps, comes before any further read.
        for (let i = 0; i < 20; i += 1) await null;
        seen.push(`1 answers after ${pulled} read`);
        signals.answered();
        await later.promise;
      } else {
        seen.push(`${m.number} starts while 1 waits`);
      }
      return 'answered';
    },
    laneOf: m => String(m.number),
    concurrency: 2,
  });
  push(message(1n, 'one'), message(2n, 'two'));
  await settle();
  t.deepEqual(seen, ['1 answers after 1 read', '2 starts while 1 waits']);
  // A turn that waits (here, on the test) does not hold up the reading either.
  push(message(3n, 'three'));
  await settle();
  t.deepEqual(seen.slice(2), ['3 starts while 1 waits']);
  later.resolve();
  cancel.resolve(Error('cancelled'));
  await following;
});

/** followInbox with concurrency 2, lanes by sender; each turn waits until the test lets it end. */
const followConcurrently = (reader: ReturnType<typeof makeFedReader>, concurrency = 2) => {
  const cancelled = makePromiseKit<Error>();
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  const following = followInbox(reader.daemon, {
    cancelled: makeCancellation(cancelled.promise),
    concurrency,
    laneOf: m => m.from,
    onMessage: async m => {
      const text = String(textOf(m));
      started.push(text);
      const { promise, resolve } = makePromiseKit<void>();
      finish.set(text, resolve);
      await promise;
      return 'answered';
    },
  });
  const stop = async () => {
    cancelled.resolve(Error('test over'));
    await following;
  };
  return { started, end: (text: string) => finish.get(text)?.(), stop };
};

test('turns of different lanes run at once, up to the limit; one lane runs in arrival order', async t => {
  const reader = makeFedReader();
  const inbox = followConcurrently(reader);
  reader.push(
    message(1n, 'ada 1', { from: 'ada' }),
    message(2n, 'ada 2', { from: 'ada' }),
    message(3n, 'bo 1', { from: 'bo' }),
    message(4n, 'cy 1', { from: 'cy' }),
  );
  await settle();
  // ada's second waits for her first; cy waits for a free place (two run).
  t.deepEqual(inbox.started, ['ada 1', 'bo 1']);
  inbox.end('bo 1');
  await settle();
  t.deepEqual(inbox.started, ['ada 1', 'bo 1', 'cy 1']);
  inbox.end('ada 1');
  await settle();
  t.deepEqual(inbox.started, ['ada 1', 'bo 1', 'cy 1', 'ada 2']);
  await inbox.stop();
});

test('a revision reaches the running turn of its own message, whichever lanes run beside it', async t => {
  const reader = makeFedReader();
  const revisions: string[] = [];
  const cancelled = makePromiseKit<Error>();
  const release = makePromiseKit<void>();
  const following = followInbox(reader.daemon, {
    cancelled: makeCancellation(cancelled.promise),
    concurrency: 4,
    laneOf: m => m.from,
    onMessage: async (m, signals) => {
      void signals.revised.then(r => revisions.push(`${m.number}: ${textOf(r)}`));
      await release.promise;
      return 'answered';
    },
  });
  const first = message(1n, 'ada asks', { from: 'ada' });
  const second = message(2n, 'bo asks', { from: 'bo' });
  reader.push(first, second);
  await settle();
  reader.push(edit(second, 'bo asks again', true));
  await settle();
  t.deepEqual(revisions, ['2: bo asks again']);
  release.resolve();
  cancelled.resolve(Error('test over'));
  await following;
});

test('a turn that fails, at once or later, and a callback that throws, fail alone: the rest of the mail is served', async t => {
  const { daemon, push } = makeFedReader();
  const cancel = makePromiseKit<Error>();
  const answered: string[] = [];
  const failures: string[] = [];
  const following = followInbox(daemon, {
    cancelled: makeCancellation(cancel.promise),
    concurrency: 2,
    onMessage: async m => {
      if (textOf(m) === 'throw at once') throw Error('at once');
      if (textOf(m) === 'fail later') {
        await settle();
        throw Error('later');
      }
      answered.push(textOf(m) ?? '');
    },
    // A form's answer fae cannot judge is set aside: it may carry a token no turn may read.
    intercept: m => {
      if (textOf(m) === 'unjudged') throw Error('no judge');
      return false;
    },
    onOwnMessage: () => {
      throw Error('own copy');
    },
    laneOf: m => {
      if (textOf(m) === 'no lane') throw Error('no lane');
      return String(m.number);
    },
    onFailure: (where, error, m) => failures.push(`${where} ${m?.number}: ${(error as Error).message}`),
  });
  push(
    message(1n, 'throw at once'),
    message(2n, 'fail later'),
    message(3n, 'unjudged'),
    message(4n, 'mine', { from: SELF }),
    message(5n, 'no lane'),
    message(6n, 'still served'),
  );
  await settle();
  await settle();
  t.deepEqual(answered.sort(), ['no lane', 'still served']);
  t.deepEqual(failures.sort(), [
    'intercept 3: no judge',
    'lane 5: no lane',
    'own-message 4: own copy',
    'turn 1: at once',
    'turn 2: later',
  ]);
  cancel.resolve(Error('cancelled'));
  await following;
});

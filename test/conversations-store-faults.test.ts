// The conversation store under a daemon that refuses (issue 19): at
// startup, on the first message after a restart, when a turn or a summary
// is stored and when a conversation is forgotten, refusals of has, list,
// lookup, storeValue, remove and makeDirectory on fae's `conversations`
// never cost a stored turn. fae keeps answering meanwhile, says so once in
// its log and in status(), stores what it answered once the store is back,
// and after the faults end and a restart remembers every earlier turn.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { E } from '@endo/far';
import { faultyPowers, makeFaults, type Faults } from './support/faulty-powers.js';
import { startWorld, type World } from './support/fault-world.js';
import { echoReply, lastUserWords, makeScriptedProvider, type RecordedRequest } from './support/scripted-provider.js';
import { waitForLog } from './support/registry-tools.js';
import type { Far } from './support/fae-harness.js';
import { nodeOf } from './support/stored-nodes.js';

/** A whole test's bound, instead of ava's 60 s: the machine may be busy (no timing is asserted). */
const BUSY_TIMEOUT_MS = 300_000;
const WAIT_MS = 30_000;
const STORE = 'conversations';
const SUMMARY_REQUEST = 'You keep the memory of a conversation';

type Method = 'has' | 'list' | 'lookup' | 'storeValue' | 'remove' | 'makeDirectory';

/** The path a guest-power call names, as an array of names. */
const pathOf = (method: Method, args: readonly unknown[]): readonly unknown[] => {
  const named = method === 'storeValue' ? args[1] : args[0];
  if (method === 'has' || method === 'list' || method === 'remove') return args;
  return Array.isArray(named) ? named : [named];
};

/** Refuses the calls of `method` on fae's conversation store whose path `also` accepts. */
const refuseStore = (faults: Faults, method: Method, also: (path: readonly unknown[]) => boolean = () => true) =>
  faults.refuse(method, args => {
    const path = pathOf(method, args);
    return path[0] === STORE && also(path);
  });

/**
 * The model: echoes the latest user words; summarizes by listing every
 * fact it was given (so a folded fact is still remembered); calls
 * forgetConversation when asked to forget, then says "Forgotten." as a
 * model that did not read the tool's result would.
 */
const respond = (request: RecordedRequest) => {
  if (request.messages[0]?.content.startsWith(SUMMARY_REQUEST)) {
    const facts = new Set(JSON.stringify(request.messages).match(/fact-\d/g) ?? []);
    return { text: `The correspondent told: ${[...facts].join(', ')}.` };
  }
  if (request.messages.at(-1)?.role === 'tool') return { text: 'Forgotten.' };
  if (lastUserWords(request.messages).startsWith('please forget')) {
    return { toolCalls: [{ name: 'forgetConversation', arguments: {} }] };
  }
  return echoReply(request);
};

interface StoreWorld extends World {
  readonly faults: Faults;
  readonly llm: ReturnType<typeof makeScriptedProvider>;
  /** Asks, and resolves with the answer once the turn is over (stored, or kept to store). */
  settle(text: string): Promise<string>;
  /** Restarts the daemon; resolves with fae's status once it has started again. */
  restart(): Promise<Record<string, unknown>>;
  status(): Promise<Record<string, unknown>>;
  /** Which of `facts` the latest request to the model carried. */
  recalled(facts: readonly string[]): string[];
  /** The names under conversations/, and what they hold as JSON: all of it, and the newest generation's. */
  stored(): Promise<{ generations: string[]; text: string; newest: string }>;
  /** How many times fae warned that the store is unavailable. */
  warnings(): number;
}

const startStoreWorld = async (
  t: ExecutionContext,
  { env = {}, faults = makeFaults() }: { env?: Record<string, string>; faults?: Faults } = {},
): Promise<StoreWorld> => {
  t.timeout(BUSY_TIMEOUT_MS);
  const llm = makeScriptedProvider(Array.from({ length: 200 }, () => respond));
  const world = await startWorld(t, { provider: llm.provider, env, wrapPowers: powers => faultyPowers(powers, faults) });
  const controller = async (): Promise<Far> => E(world.host).lookup('controller-for-fae');
  return {
    ...world,
    faults,
    llm,
    settle: async (text: string) => {
      const from = world.logs.length;
      const answer = await world.ask(text);
      await waitForLog(world.logs, ['message-done'], { from, timeoutMs: WAIT_MS });
      return answer;
    },
    restart: async () => {
      await world.daemon.restart();
      return E(await controller()).whenStarted();
    },
    status: async () => E(await controller()).status(),
    recalled: (facts: readonly string[]) => {
      const text = JSON.stringify(llm.requests.at(-1)?.messages ?? []);
      return facts.filter(fact => text.includes(fact));
    },
    stored: async () => {
      const generations: string[] = [...(await E(world.fae).list(STORE))];
      const values = await Promise.all(
        generations.map(async generation => {
          const names: string[] = await E(world.fae).list(STORE, generation);
          return Promise.all(names.map(async name => nodeOf(await E(world.fae).lookup([STORE, generation, name]))));
        }),
      );
      const number = (name: string) => Number(/-g(\d+)$/.exec(name)?.[1]);
      const newest = generations.reduce((best, name, i) => (number(name) > number(generations[best]) ? i : best), 0);
      return { generations, text: JSON.stringify(values), newest: JSON.stringify(values[newest] ?? []) };
    },
    warnings: () => world.logs.filter(line => line.includes('conversations-store-unavailable')).length,
  };
};

/** After the faults: a restart, and every fact comes back in the next request. */
const remembersAll = async (t: ExecutionContext, world: StoreWorld, facts: readonly string[]) => {
  const status = await world.restart();
  t.is(status.storage, 'ok');
  t.is(await world.ask('what did I tell you?'), 're: what did I tell you?');
  t.deepEqual(world.recalled(facts), [...facts], 'every earlier turn is remembered');
};

/** fae told it in status(), and warned once however many messages it answered. */
const toldUnavailable = async (t: ExecutionContext, world: StoreWorld, refused: RegExp) => {
  const status = await world.status();
  t.is(status.storage, 'unavailable');
  t.regex(String(status.storageError), refused);
  t.is(world.warnings(), 1, 'one warning, not one per message');
};

const toldRecovered = async (t: ExecutionContext, world: StoreWorld) => {
  const status = await world.status();
  t.is(status.storage, 'ok');
  t.is(status.storageError, '');
  t.is(status.unstoredTurns, 0);
};

// ---------------------------------------------------------------- startup

for (const method of ['has', 'list'] as const) {
  test(`startup: a refused ${method} of the store wipes nothing; fae answers meanwhile and stores it all once it can`, async t => {
    const world = await startStoreWorld(t);
    await world.settle('fact-1');
    await world.settle('fact-2');
    refuseStore(world.faults, method);
    const started = await world.restart();
    t.is(started.state, 'running');
    t.is(started.storage, 'unavailable');
    t.is(await world.settle('fact-3'), 're: fact-3');
    t.is(await world.settle('fact-4'), 're: fact-4');
    await toldUnavailable(t, world, new RegExp(`refused ${method}`));
    t.is((await world.status()).unstoredTurns, 2);

    world.faults.allow(method);
    t.is(await world.settle('fact-5'), 're: fact-5');
    // Read back on this turn, before it: the stored turns and those answered meanwhile.
    t.deepEqual(world.recalled(['fact-1', 'fact-2', 'fact-3', 'fact-4']), ['fact-1', 'fact-2', 'fact-3', 'fact-4']);
    await toldRecovered(t, world);
    await remembersAll(t, world, ['fact-1', 'fact-2', 'fact-3', 'fact-4', 'fact-5']);
  });
}

test('startup: a refused makeDirectory of a new store leaves fae answering, and the store is made once it can be', async t => {
  const faults = makeFaults();
  refuseStore(faults, 'makeDirectory');
  const world = await startStoreWorld(t, { faults });
  t.is((await world.status()).storage, 'unavailable');
  t.is(await world.settle('fact-1'), 're: fact-1');
  t.is(await world.settle('fact-2'), 're: fact-2');
  await toldUnavailable(t, world, /refused makeDirectory/);
  faults.allow('makeDirectory');
  t.is(await world.settle('fact-3'), 're: fact-3');
  await toldRecovered(t, world);
  await remembersAll(t, world, ['fact-1', 'fact-2', 'fact-3']);
});

// ------------------------------------------- the first message after a restart

const GENERATION_LIST = (path: readonly unknown[]) => path.length > 1;

for (const [method, also, name] of [
  ['lookup', () => true, 'lookup of its turns'],
  ['list', GENERATION_LIST, 'list of its generation'],
] as const) {
  test(`first message after a restart: a refused ${name} neither replaces nor shadows the stored conversation`, async t => {
    const world = await startStoreWorld(t);
    await world.settle('fact-1');
    await world.settle('fact-2');
    const before = await world.stored();
    refuseStore(world.faults, method, also);
    t.is((await world.restart()).storage, 'ok');
    // Answered without its history, which could not be read.
    t.is(await world.settle('fact-3'), 're: fact-3');
    t.is(await world.settle('fact-4'), 're: fact-4');
    await toldUnavailable(t, world, new RegExp(`refused ${method}`));
    t.is((await world.status()).unstoredTurns, 2);
    t.deepEqual(await world.stored(), before, 'nothing was written over the unread conversation');

    world.faults.allow(method);
    t.is(await world.settle('fact-5'), 're: fact-5');
    t.deepEqual(world.recalled(['fact-1', 'fact-2', 'fact-3', 'fact-4']), ['fact-1', 'fact-2', 'fact-3', 'fact-4']);
    await toldRecovered(t, world);
    await remembersAll(t, world, ['fact-1', 'fact-2', 'fact-3', 'fact-4', 'fact-5']);
  });
}

// ------------------------------------------------------------ storing turns

test('storing a turn: refused storeValue keeps the turns in memory and stores them, in order, once it can', async t => {
  const world = await startStoreWorld(t);
  await world.settle('fact-1');
  refuseStore(world.faults, 'storeValue');
  t.is(await world.settle('fact-2'), 're: fact-2');
  t.is(await world.settle('fact-3'), 're: fact-3');
  await toldUnavailable(t, world, /refused storeValue/);
  t.is((await world.status()).unstoredTurns, 2);
  t.false(world.logs.some(line => line.includes('conversation-not-stored')));

  world.faults.allow('storeValue');
  // The background retry stores them, without waiting for another message
  // (its pause doubles with each failure, up to 30 s: the bound is generous).
  await waitForLog(world.logs, ['conversations-store-available'], { timeoutMs: 4 * WAIT_MS });
  await toldRecovered(t, world);
  await world.settle('fact-4');
  await remembersAll(t, world, ['fact-1', 'fact-2', 'fact-3', 'fact-4']);
});

test('storing the first turn of a conversation: a refused makeDirectory loses no turn', async t => {
  const world = await startStoreWorld(t);
  refuseStore(world.faults, 'makeDirectory', GENERATION_LIST);
  t.is(await world.settle('fact-1'), 're: fact-1');
  await toldUnavailable(t, world, /refused makeDirectory/);
  world.faults.allow('makeDirectory');
  await world.settle('fact-2');
  await toldRecovered(t, world);
  await remembersAll(t, world, ['fact-1', 'fact-2']);
});

// --------------------------------------------------------------- compaction

for (const method of ['makeDirectory', 'storeValue', 'remove'] as const) {
  test(`compaction: a refused ${method} keeps the stored generation whole and the summary is stored once it can`, async t => {
    const world = await startStoreWorld(t, { env: { FAE_MAX_TRANSCRIPT: '3' } });
    await world.settle('fact-1');
    await world.settle('fact-2');
    const before = await world.stored();
    t.is(before.generations.length, 1);
    refuseStore(world.faults, method);
    // Its request folds the first two turns into a summary: a new generation.
    t.is(await world.settle('fact-3'), 're: fact-3');
    t.true(world.logs.some(line => line.includes('conversation-compacted')));
    await toldUnavailable(t, world, new RegExp(`refused ${method}`));
    const during = await world.stored();
    t.true(during.generations.includes(before.generations[0]), 'the old generation is still there');
    t.true(during.text.includes('fact-1') && during.text.includes('fact-2'));

    world.faults.allow(method);
    t.is(await world.settle('fact-4'), 're: fact-4');
    await toldRecovered(t, world);
    const after = await world.stored();
    t.is(after.generations.length, 1, 'one generation, holding the summary; the old one removed');
    t.not(after.generations[0], before.generations[0]);
    t.true(after.text.includes('"kind":"summary"'));
    await remembersAll(t, world, ['fact-1', 'fact-2', 'fact-3', 'fact-4']);
  });
}

// ------------------------------------------------------------------- forget

test('forget: a refused remove is told to the model and the sender, and nothing is forgotten', async t => {
  const world = await startStoreWorld(t);
  await world.settle('fact-1');
  await world.settle('fact-2');
  refuseStore(world.faults, 'remove');
  const answer = await world.settle('please forget me');
  t.regex(answer, /^Forgotten\.\n\n\(Note from fae: could not forget the conversation: .*refused remove.*Nothing was forgotten/s);
  const toolResult = world.llm.requests.at(-1)?.messages.at(-1);
  t.is(toolResult?.role, 'tool');
  t.regex(toolResult?.content ?? '', /could not forget the conversation: .*refused remove/);
  t.true((await world.stored()).text.includes('fact-1'));
  t.is(await world.settle('fact-3'), 're: fact-3');
  t.deepEqual(world.recalled(['fact-1', 'fact-2']), ['fact-1', 'fact-2'], 'still held, whole');

  world.faults.allow('remove');
  await remembersAll(t, world, ['fact-1', 'fact-2', 'fact-3']);
  t.is(await world.settle('please forget me'), 'Forgotten.');
  t.deepEqual((await world.stored()).generations, []);
  await world.restart();
  await world.ask('what did I tell you?');
  t.deepEqual(world.recalled(['fact-1', 'fact-2', 'fact-3']), []);
});

test('forget: a removal refused half way leaves a whole conversation, never an older generation with holes', async t => {
  const world = await startStoreWorld(t, { env: { FAE_MAX_TRANSCRIPT: '3' } });
  await world.settle('fact-1');
  await world.settle('fact-2');
  const [first] = (await world.stored()).generations;
  // The first generation cannot be removed: after compaction it stays beside the second.
  refuseStore(world.faults, 'remove', path => path[1] === first);
  await world.settle('fact-3');
  t.is((await world.stored()).generations.length, 2);
  t.regex(await world.settle('please forget me'), /Note from fae: could not forget the conversation: .*refused remove/);
  const kept = await world.stored();
  t.true(kept.generations.includes(first), 'the oldest could not go, so nothing went');
  t.deepEqual(['fact-1', 'fact-2', 'fact-3'].filter(fact => kept.newest.includes(fact)), ['fact-1', 'fact-2', 'fact-3']);

  // Still refused: after a restart the newest generation is read, with every turn.
  await remembersAll(t, world, ['fact-1', 'fact-2', 'fact-3']);
  world.faults.allow('remove');
  t.is(await world.settle('please forget me'), 'Forgotten.');
  t.deepEqual((await world.stored()).generations, []);
});

test('forget: while the store cannot be listed, forgetting says so and forgets nothing', async t => {
  const world = await startStoreWorld(t);
  await world.settle('fact-1');
  refuseStore(world.faults, 'has');
  await world.restart();
  t.regex(await world.settle('please forget me'), /Note from fae: could not forget the conversation: the conversation store cannot be listed .*refused has/);
  world.faults.allow('has');
  await remembersAll(t, world, ['fact-1']);
});

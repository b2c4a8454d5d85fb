// One fae in its own local daemon, with everything the benches count:
// its guest-powers calls (a forwarding wrapper around its powers), every
// daemon call (the local daemon's counters) and every call on a tool (the
// tools count themselves). The model is a zero-latency script
// (bench-model.ts): for each message it calls `list`, then answers. The
// same counts are taken of the floor (below) and of upstream fae
// (upstream-fae.ts). The bench host dismisses what it received after each
// message, so its inbox does not grow.
import { E, Far } from '@endo/far';
import { makeExo } from '@endo/exo';
import { makePromiseKit } from '@endo/promise-kit';
import { startFae } from '../../src/agent/fae.js';
import { makeLocalDaemon } from '../../src/local-daemon/index.js';
import type { LocalDaemon } from '../../src/local-daemon/index.js';
import { FaeToolInterface } from '../../src/tool-kit/fae-tool-interface.js';
import { makeRefIterator } from '../../src/daemon/ref-iterator.js';
import type { MessageRecord } from '../../src/daemon/endo-types.js';
import { makeBenchModel } from './bench-model.js';
import { useModel } from './upstream-model.js';
import type { UpstreamMake } from './upstream-fae.js';

// `any`: daemon objects are remote references.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

// Every guest method of both generations (spec §4.1; next spec §3-§4).
const GUEST_METHODS = [
  'help', 'has', 'identify', 'reverseIdentify', 'locate', 'reverseLocate', 'list',
  'listIdentifiers', 'listLocators', 'followNameChanges', 'followLocatorNameChanges', 'lookup',
  'maybeLookup', 'lookupById', 'lookupByLocator', 'reverseLookup', 'write', 'storeIdentifier',
  'storeLocator', 'remove', 'move', 'copy', 'makeDirectory', 'storeValue', 'handle',
  'listMessages', 'followMessages', 'send', 'reply', 'adopt', 'dismiss', 'dismissAll',
  'request', 'resolve', 'reject', 'evaluate', 'requestEvaluation', 'define', 'form',
  'editMessage', 'messageHistory', '__getMethodNames__',
];

export interface Counts {
  /** Calls fae made on its guest powers. */
  readonly guest: number;
  /** Every call that crossed to the daemon or to a tool. */
  readonly far: number;
}

/** A tool that counts the calls made on it. */
const makeCountingTool = (name: string, counter: { calls: number }) => {
  const schema = harden({
    type: 'function',
    function: {
      name,
      description: `Bench tool ${name}.`,
      parameters: { type: 'object', properties: { text: { type: 'string', description: 'Any text.' } } },
    },
  });
  return makeExo('BenchTool', FaeToolInterface, {
    schema: () => {
      counter.calls += 1;
      return schema as unknown as Record<string, unknown>;
    },
    execute: async () => {
      counter.calls += 1;
      return 'ok';
    },
    help: () => {
      counter.calls += 1;
      return 'A bench tool.';
    },
  });
};

export interface CountedFae {
  readonly daemon: LocalDaemon;
  counts(): Counts;
  /**
   * Sends one message and waits until fae has dismissed it; reports the
   * counts and times of that message.
   */
  message(): Promise<MessageFigures>;
  stop(): Promise<void>;
}

export interface MessageFigures {
  readonly beforeFirst: Counts;
  readonly perMessage: Counts;
  /** From the message's arrival in fae's inbox to the first model request. */
  readonly toFirstMs: number;
  /** From the message's arrival to fae's reply being delivered. */
  readonly turnMs: number;
  /** From the message's arrival to its dismissal, the last call of a turn. */
  readonly doneMs: number;
}

const settle = () => new Promise(resolve => setTimeout(resolve, 1));

// A daemon that stops rejects what its caplets still wait on (the
// context's whenCancelled, the agent's follow reads) with this reason, and
// @endo/marshal logs every error CapTP carries: expected at a bench's end.
const STOP_REASON = 'Daemon stopped';
const SENT_ERROR_LOG = 'Temporary logging of sent error';

/**
 * The floor: an agent that makes only the daemon calls any agent must
 * (read the message, reply, dismiss it and its own copy of the reply),
 * with no model and no tools. What it costs is the local daemon's and
 * CapTP's share of a message.
 */
const startFloorAgent = (powers: Far) => {
  const inbox = makeRefIterator<MessageRecord>(E(powers).followMessages());
  const selfId = E(powers).identify('SELF');
  const loop = async () => {
    for (;;) {
      // Sequential: one message after the other, as fae handles them.
      const question = await inbox.next();
      if (question.done) return;
      await E(powers).reply(question.value.number, ['done'], [], []);
      // The copy of the reply the daemon files in the floor's own inbox
      // comes next; dismissed within the turn, so the daemon does not keep
      // it and the bench counts it with this message.
      const ownCopy = await inbox.next();
      if (ownCopy.done) return;
      if (ownCopy.value.from !== (await selfId)) throw Error('The floor expected its own copy of its reply');
      await E(powers).dismiss(ownCopy.value.number);
      await E(powers).dismiss(question.value.number);
    }
  };
  loop().catch(error => {
    // The daemon's stop ends the loop; anything else would leave the bench waiting.
    if (!(error instanceof Error && error.message === STOP_REASON)) console.error('The floor agent failed:', error);
  });
  return Far('Floor', { whenStarted: async () => undefined });
};

/** fae, the floor, or upstream fae (its `make`, from upstream-fae.ts). */
export type BenchAgent = 'fae' | 'floor' | { readonly upstream: UpstreamMake };

export interface CountedFaeOptions {
  /** The daemon's CapTP releases dropped imports (see LocalDaemonOptions). */
  readonly gcImports?: boolean;
}

/**
 * Runs `work` with console output dropped: upstream fae logs every
 * transcript entry (it still formats them; the daemon would write them to
 * its log), which would drown the bench's tables.
 */
const muted = async <T>(work: () => Promise<T>): Promise<T> => {
  const original = globalThis.console;
  const quiet = () => {};
  globalThis.console = harden({ ...original, log: quiet, warn: quiet, error: quiet, info: quiet });
  try {
    return await work();
  } finally {
    globalThis.console = original;
  }
};

/**
 * Runs `work` without the marshal's log line for each error a daemon sends
 * a caller that `expected` says the caller expects (the daemon's stop, a
 * probe of a plain value); anything else logged meanwhile still prints.
 */
export const withoutSentErrors = async <T>(work: () => Promise<T>, expected: (error: Error) => boolean = () => true): Promise<T> => {
  const original = globalThis.console;
  const isNoise = (args: unknown[]) => args[0] === SENT_ERROR_LOG && args[1] instanceof Error && expected(args[1]);
  globalThis.console = harden({
    ...original,
    log: (...args: unknown[]) => {
      if (!isNoise(args)) original.log(...args);
    },
  });
  try {
    return await work();
  } finally {
    globalThis.console = original;
  }
};

/** Stops a bench daemon without the marshal's log line for each call it rejects with its stop reason. */
export const stopQuietly = (daemon: LocalDaemon) =>
  withoutSentErrors(async () => {
    await daemon.stop();
    // Rejections still on their way are marshalled in the next turns.
    await new Promise(resolve => setTimeout(resolve, 0));
  }, error => error.message === STOP_REASON);

/** What the bench watches of an agent's calls on its powers. */
interface Watch {
  calls: number;
  /** The message being answered (the model's, where the agent sends its answer). */
  answering: () => unknown;
  onAnswer: () => void;
  onDismissed: () => void;
}

/**
 * The agent's powers, counting every call and telling the bench of the
 * answer (`reply`, or `send` for an agent that answers by sending) and of
 * the dismissal of the message answered, the end of a turn, not of the
 * agent's own copy of its reply.
 */
const watchedPowers = (powers: Far, watch: Watch) => {
  let answered: unknown;
  return harden(
    Object.fromEntries(
      GUEST_METHODS.map(method => [
        method,
        (...args: unknown[]) => {
          watch.calls += 1;
          const answer = (E(powers) as Far)[method](...args);
          if (method === 'reply' || method === 'send') {
            answered = method === 'reply' ? args[0] : watch.answering();
            answer.finally(watch.onAnswer);
          }
          if (method === 'dismiss' && args[0] === answered) answer.finally(watch.onDismissed);
          return answer;
        },
      ]),
    ),
  );
};

/** Makes `count` counting tools in the host's inventory, as tool-0, tool-1, … */
const makeTools = async (daemon: LocalDaemon, count: number, counter: { calls: number }) => {
  // One at a time: each caplet creation runs the daemon's collection.
  for (let i = 0; i < count; i += 1) {
    await daemon.makeCaplet(() => makeCountingTool(`tool_${i}`, counter), { resultName: `tool-${i}` });
  }
};

/** Puts the tools into fae's tools/ directory. */
const introduceTools = async (host: Far, count: number) => {
  // One at a time, as a host would, so that each is a change of its own.
  for (let i = 0; i < count; i += 1) await E(host).copy([`tool-${i}`], ['profile-for-fae', 'tools', `tool-${i}`]);
};

export const startCountedFae = async (
  toolCount: number,
  env: Record<string, string>,
  agent: BenchAgent = 'fae',
  { gcImports = false }: CountedFaeOptions = {},
): Promise<CountedFae> => {
  const daemon = makeLocalDaemon({ gcImports });
  const host: Far = await daemon.host;
  await E(host).provideGuest('fae', { agentName: 'profile-for-fae' });
  await E(host).makeDirectory(['profile-for-fae', 'tools']);
  const toolCalls = { calls: 0 };
  await makeTools(daemon, toolCount, toolCalls);
  const upstream = typeof agent === 'object' ? agent.upstream : undefined;
  // Upstream makes tools/ afresh at its start (a February makeDirectory replaces): its tools come after.
  if (upstream === undefined) await introduceTools(host, toolCount);
  let dismissed = makePromiseKit<void>();
  let replied = makePromiseKit<void>();
  const model = makeBenchModel(upstream === undefined ? 'fae' : 'upstream');
  const watch: Watch = {
    calls: 0,
    answering: model.answering,
    onAnswer: () => replied.resolve(),
    onDismissed: () => dismissed.resolve(),
  };
  // Upstream's first message is its ready message to HOST.
  const readySent = replied.promise;
  const quietly = upstream === undefined ? <T>(work: () => Promise<T>) => work() : muted;
  if (upstream !== undefined) useModel(model.provider);
  const controller: Far = await quietly(() =>
    daemon.makeCaplet(
      (powers, context, options) => {
        const counted = watchedPowers(powers, watch);
        if (agent === 'floor') return startFloorAgent(counted);
        if (upstream !== undefined) return upstream(counted, context, { env: options.env });
        return startFae(counted as Far, context as Far, { env: options.env, provider: model.provider, write: () => {} });
      },
      { powersName: 'profile-for-fae', resultName: 'controller-for-fae', env },
    ),
  );
  if (upstream === undefined) {
    await E(controller).whenStarted();
  } else {
    await quietly(() => readySent);
    await introduceTools(host, toolCount);
  }
  await settle();

  const counts = (): Counts => {
    const daemonCalls = Object.values(daemon.callCounts()).reduce((a, b) => a + b, 0);
    return { guest: watch.calls, far: daemonCalls + toolCalls.calls };
  };
  const minus = (a: Counts, b: Counts, hostCalls: number): Counts => ({
    guest: a.guest - b.guest,
    far: a.far - b.far - hostCalls,
  });

  return {
    daemon,
    counts,
    message: () => quietly(async () => {
      const c0 = counts();
      dismissed = makePromiseKit<void>();
      replied = makePromiseKit<void>();
      const first = model.nextFirstRequest();
      await E(host).send('fae', ['What is in your directory?'], [], []);
      const arrived = performance.now();
      // The floor agent asks no model: its first request is its reply.
      await (agent === 'floor' ? replied.promise : first);
      const firstAt = performance.now();
      const c1 = counts();
      await replied.promise;
      const repliedAt = performance.now();
      await dismissed.promise;
      const doneAt = performance.now();
      // fae's next read of its inbox goes out once the turn is over.
      await settle();
      const c2 = counts();
      // Outside the measured window: the host lets go of its copy of the
      // question and fae's reply, so the bench itself does not grow.
      await E(host).dismissAll();
      // The host's send is the bench's call, not fae's.
      return {
        beforeFirst: minus(c1, c0, 1),
        perMessage: minus(c2, c0, 1),
        toFirstMs: firstAt - arrived,
        turnMs: repliedAt - arrived,
        doneMs: doneAt - arrived,
      };
    }),
    stop: () => quietly(() => stopQuietly(daemon)),
  };
};

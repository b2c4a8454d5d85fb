// Assembles the local daemon: kernel, formulas, the root host, workers
// behind CapTP connections, caplets, garbage collection, restart and stop.
import { E, Far } from '@endo/far';
import { makeExo } from '@endo/exo';
import type { Formula, Kernel } from './kernel/kernel.js';
import type { LocalDaemon, LocalDaemonOptions, MakeCaplet, MakeCapletOptions, Presence } from './types.js';
import { makeKernel } from './kernel/kernel.js';
import { makeFormulator } from './kernel/formulate.js';
import { makeInstrumentation } from './kernel/instrument.js';
import { makeConnection, type Connection } from './workers/connection.js';
import { makeWorkerBootstrap } from './workers/worker.js';
import { makeCapletRunner } from './workers/caplets.js';
import { collectGarbage } from './kernel/gc.js';
import { makeGuestExo, makeHostExo, type HostInternals } from './agent.js';
import type { AgentPowers } from './agent-powers.js';
import { makeDirectoryExo } from './names/directory-exo.js';
import { makeStoreHub } from './names/hubs.js';
import { makeMailHub, makeMessageHub } from './mail/mail-hub.js';
import { HandleInterface } from './interfaces.js';
import type { FollowerControl } from './follow/follow.js';
import { makeFollowOut } from './follow/far-follower.js';
import type { PendingRequest } from './mail/post-office.js';
import type { MessageRecord } from './mail/mailbox-state.js';
import { agentDocs, docsFor, hostDocs, makeHelp } from './help.js';
import { specialNames, type Dialect } from '../daemon/dialect.js';
import { makeValueMarshal, readStoredValue } from './kernel/value-marshal.js';
import { REPORTED_ALREADY, inBackground } from '../background.js';

const notAllowed = () => {
  throw Error('not allowed');
};

/** NONE: an object with every agent method, each of which throws. */
const makeLeastAuthority = (dialect: Dialect) =>
  Far(
    'EndoGuest',
    Object.fromEntries(Object.keys(docsFor(dialect, hostDocs, true)).map(name => [name, notAllowed])),
  );

// Lets the daemon's own code yield to CapTP so a cancellation reaches the
// worker before its connection is severed.
const settleTurns = () => new Promise<void>(resolve => setTimeout(resolve, 0));

/** What makes each formula's value: the agents, directories, hubs, values and caplets. */
const makeIncarnate = (
  kernel: Kernel,
  powers: AgentPowers,
  dialect: Dialect,
  onHost: (id: string, internals: HostInternals) => void,
) => {
  const { instrument, formulator, follow, runner } = powers;
  const openMessage = (record: MessageRecord) =>
    makeDirectoryExo(kernel, instrument, makeMessageHub(kernel, record), formulator.directory, follow, 'A message.');
  const valueMarshal = makeValueMarshal(kernel);
  return (id: string, formula: Formula) => {
    switch (formula.type) {
      case 'host': {
        const { exo, internals } = makeHostExo(id, formula, powers);
        onHost(id, internals);
        return exo;
      }
      case 'guest':
        return makeGuestExo(id, formula, powers);
      case 'handle':
        return makeExo('Handle', HandleInterface, {});
      case 'directory':
        return makeDirectoryExo(kernel, instrument, makeStoreHub(kernel, formula.store), formulator.directory, follow);
      case 'mail-hub': {
        const agent = kernel.formulaOf(formula.agent);
        if (agent.type !== 'host' && agent.type !== 'guest') throw Error('A mail hub needs an agent');
        return makeDirectoryExo(kernel, instrument, makeMailHub(kernel, agent.mailbox, openMessage), formulator.directory, follow, 'Messages.');
      }
      case 'marshal':
        return formula.slots.length === 0
          ? valueMarshal.fromCapData({ body: formula.body, slots: [] })
          : readStoredValue(kernel, formula);
      case 'make-unconfined':
        return runner.incarnate(id, formula);
      case 'eval':
        return runner.evaluate(formula);
      case 'least-authority':
        return makeLeastAuthority(dialect);
      case 'endo':
        return Far('Endo', { help: () => makeHelp('The Endo daemon.', {})() });
      case 'worker':
        return Far('EndoWorker', {});
      case 'pet-inspector':
        return Far('PetInspector', { help: () => makeHelp('Pet name inspector.', agentDocs)() });
      default:
        throw Error('Unknown formula type');
    }
  };
};

/**
 * The client's own connection to the daemon (the test's, or `endo run`'s):
 * the host's presence, and a way to hand the client any value the daemon
 * holds (a caplet's result).
 */
const connectClient = (hostExo: object, connectionOptions: { readonly gcImports: boolean }) => {
  const exported = new Map<number, unknown>();
  let nextNonce = 0;
  const client = makeConnection(
    'client',
    Far('EndoBootstrap', {
      host: () => hostExo,
      getRef: (nonce: number) => {
        const value = exported.get(nonce);
        exported.delete(nonce);
        return value;
      },
    }),
    Far('EndoClient', {}),
    connectionOptions,
  );
  const toClient = (value: unknown): Promise<Presence> => {
    nextNonce += 1;
    exported.set(nextNonce, value);
    return E(client.nearBootstrap as Promise<{ getRef(nonce: number): Presence }>).getRef(nextNonce);
  };
  const hostPresence = E(client.nearBootstrap as Promise<{ host(): Presence }>).host();
  return { client, toClient, hostPresence };
};

/** How many of the workers' exceptions are kept for workerExceptions(). */
const WORKER_EXCEPTIONS_KEPT = 100;

/**
 * The workers' connections, each made when a caplet first runs in it, and
 * the exceptions their CapTP carried (a call of theirs answered with an
 * error), the latest WORKER_EXCEPTIONS_KEPT, as a real worker logs them.
 */
const makeWorkers = (localMakes: Map<string, MakeCaplet>, connectionOptions: { readonly gcImports: boolean }) => {
  const connections = new Map<string, Connection>();
  const exceptions: string[] = [];
  const onFarReject = (reason: unknown) => {
    exceptions.push(reason instanceof Error ? reason.message : String(reason));
    if (exceptions.length > WORKER_EXCEPTIONS_KEPT) exceptions.shift();
  };
  return {
    connectionFor: (workerId: string): Connection => {
      let connection = connections.get(workerId);
      if (connection === undefined) {
        connection = makeConnection('worker', Far('EndoDaemon', {}), makeWorkerBootstrap(localMakes), {
          ...connectionOptions,
          onFarReject,
        });
        connections.set(workerId, connection);
      }
      return connection;
    },
    /** Severs every worker's connection: calls on their presences reject with `reason`. */
    abortAll: (reason: Error) => {
      for (const connection of connections.values()) connection.abort(reason);
      connections.clear();
    },
    exceptions: () => harden([...exceptions]),
  };
};

export const makeLocalDaemon = (options: LocalDaemonOptions = {}): LocalDaemon => {
  const dialect: Dialect = options.dialect ?? 'feb';
  if (!['feb', 'may', 'aug'].includes(dialect)) {
    throw RangeError(`The local daemon speaks feb, may or aug, not ${JSON.stringify(dialect)}`);
  }
  if (!['after-calls', 'on-demand', undefined].includes(options.collection)) {
    throw RangeError(`The local daemon collects after-calls or on-demand, not ${JSON.stringify(options.collection)}`);
  }
  const connectionOptions = harden({ gcImports: options.gcImports ?? false });
  const kernel: Kernel = makeKernel(dialect);
  const names = specialNames(dialect);
  const transientRoots = new Set<string>();
  const followers = new Set<FollowerControl>();
  const requests = new Map<string, PendingRequest>();
  const localMakes = new Map<string, MakeCaplet>();
  const workers = makeWorkers(localMakes, connectionOptions);
  let stopped = false;

  const runner = makeCapletRunner(kernel, workers.connectionFor);
  const formulator = makeFormulator(kernel);
  let rootHostId = '';

  /**
   * The collection pass, after a guest or host call once no other is in
   * flight; like upstream's collectIfDirty it does nothing when nothing
   * changed since the last pass (unless `always`).
   */
  const collect = (always = false) => {
    if (!kernel.takeDirty() && !always) return;
    collectGarbage(kernel, [rootHostId, ...transientRoots], (id, formula) => {
      // A caplet that will not stop is collected all the same.
      if (formula.type === 'make-unconfined') inBackground(runner.cancel(id, Error('Collected formula')), REPORTED_ALREADY);
    });
  };
  const collectsAfterCalls = (options.collection ?? 'after-calls') === 'after-calls';
  const instrumentation = makeInstrumentation(options.latencyMs ?? 0, () => {
    if (!stopped && collectsAfterCalls) collect();
  });
  const { instrument } = instrumentation;

  const follow = makeFollowOut(instrument, (control: FollowerControl) => {
    followers.add(control);
    return () => {
      followers.delete(control);
    };
  }, dialect);
  const powers: AgentPowers = harden({
    kernel,
    instrument,
    formulator,
    post: harden({ requests, follow }),
    runner,
    transientRoots,
    follow,
  });

  let rootHostInternals: HostInternals | undefined;
  kernel.setMaker(
    makeIncarnate(kernel, powers, dialect, (id, internals) => {
      if (id === rootHostId) rootHostInternals = internals;
    }),
  );

  rootHostId = formulator.host().agentId;
  const hostExo = kernel.provide(rootHostId) as object;
  // The test's (or `endo run`'s) own connection to the daemon.
  const { client, toClient, hostPresence } = connectClient(hostExo, connectionOptions);

  const killWorkers = async (reason: Error) => {
    await Promise.all(runner.live().map(id => runner.cancel(id, reason)));
    for (const follower of [...followers]) follower.kill(reason);
    await settleTurns();
    workers.abortAll(reason);
    // What was evaluated in them is evaluated again when next provided.
    for (const [id, formula] of kernel.formulas) if (formula.type === 'eval') kernel.forget(id);
  };

  let nextLocal = 0;

  return harden({
    dialect,
    get host() {
      return hostPresence;
    },
    makeCaplet: async (make: MakeCaplet, capletOptions: MakeCapletOptions = {}) => {
      nextLocal += 1;
      const key = `local-caplet-${nextLocal}`;
      localMakes.set(key, make);
      const internals = rootHostInternals as HostInternals;
      const value = await internals.makeCapletFormula({
        workerName: capletOptions.workerName ?? names.main,
        specifier: undefined,
        local: key,
        powersName: capletOptions.powersName ?? names.none,
        resultName: capletOptions.resultName,
        env: capletOptions.env ?? {},
      });
      collect(true);
      return toClient(value);
    },
    restart: async () => {
      await killWorkers(Error('Daemon restarted'));
      for (const formula of kernel.formulas.values()) {
        if (formula.type === 'host' || formula.type === 'guest') formula.mailbox.restore();
      }
      collect(true);
      // Upstream revives a caplet lazily, when something provides it; we
      // make every reachable caplet again at once so tests can await it.
      const caplets = [...kernel.formulas.entries()].filter(([, formula]) => formula.type === 'make-unconfined');
      await Promise.allSettled(caplets.map(([id]) => kernel.provide(id)));
    },
    stop: async () => {
      stopped = true;
      await killWorkers(Error('Daemon stopped'));
      client.abort(Error('Daemon stopped'));
    },
    openFollowers: () => followers.size,
    workerExceptions: workers.exceptions,
    collect: () => {
      if (!stopped) collect();
    },
    callCounts: instrumentation.callCounts,
    resetCallCounts: instrumentation.resetCallCounts,
    setLatency: instrumentation.setLatency,
  });
};
harden(makeLocalDaemon);

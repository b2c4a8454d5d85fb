// Starts fae in a worker thread (isolated-fae-worker.ts) as the caplet of
// a local daemon in this thread, so that fae's heap can be read apart from
// the daemon's and from CapTP's tables on the daemon's side.
import { Worker } from 'node:worker_threads';
import { E, Far } from '@endo/far';
import { makeCapTP } from '@endo/captp';
import { makeLocalDaemon } from '../../src/local-daemon/index.js';
import { stopQuietly } from './counted-fae.js';
import { measuredIn, type Measured } from './measured-message.js';

// `any`: remote references.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

/** Bytes of fae's thread's heap in use: in all, and in the code space. */
export interface HeapReading {
  readonly total: number;
  readonly code: number;
}

export interface IsolatedFaeOptions {
  /**
   * When the local daemon runs its collection pass (LocalDaemonOptions):
   * 'between-messages' runs it once fae has handled each message of
   * converseAmong, rather than after each call, beside fae's work.
   */
  readonly collection?: 'after-calls' | 'between-messages';
}

export const startIsolatedFae = async (env: Record<string, string>, { collection = 'after-calls' }: IsolatedFaeOptions = {}) => {
  // The worker inherits this process's --import @endo/init and --expose-gc.
  const worker = new Worker(new URL('./isolated-fae-worker.js', import.meta.url));
  const { getBootstrap, dispatch, abort } = makeCapTP(
    'isolated-fae-parent',
    (message: unknown) => worker.postMessage(message),
    undefined,
    // The rejections CapTP carries reach their callers; it need not print them too.
    { gcImports: true, onReject: () => {} },
  );
  let onMeasured = (_measured: Measured) => {};
  worker.on('message', message => {
    const measured = measuredIn(message);
    if (measured === undefined) dispatch(message);
    else onMeasured(measured);
  });
  const isolate: Far = getBootstrap();
  const daemon = makeLocalDaemon({ gcImports: true, collection: collection === 'after-calls' ? 'after-calls' : 'on-demand' });
  const host: Far = await daemon.host;
  await E(host).provideGuest('fae', { agentName: 'profile-for-fae' });
  const controller: Far = await daemon.makeCaplet(
    (powers, context, options) => E(isolate).start(powers, context, options.env),
    { powersName: 'profile-for-fae', resultName: 'controller-for-fae', env },
  );
  await E(controller).whenStarted();
  await E(isolate).meet(host);
  if (collection === 'between-messages') await E(isolate).collectBetweenMessages(Far('Collection', { collect: () => daemon.collect() }));
  return {
    host,
    controller,
    /** HOST sends messages `from` to `to`, each once fae has handled the one before. */
    converse: (from: number, to: number): Promise<void> => E(isolate).converse(from, to),
    /**
     * The guests `names`, each knowing fae as "fae". They stay in this
     * thread, as a real correspondent is elsewhere: held in fae's thread,
     * each message's send through one of a thousand presences was counted
     * as fae's work. fae's thread asks one Writers object here to send.
     */
    meetMany: async (names: readonly string[]) => {
      const guests: Far[] = await Promise.all(
        names.map(name => E(host).provideGuest(name, { introducedNames: { fae: 'fae' }, agentName: `${name}-agent` })),
      );
      const writers = Far('Writers', {
        send: (who: number, text: string) => E(guests[who]).send('fae', [text], [], []),
      });
      await E(isolate).meetMany(writers);
    },
    /** One message from each guest `order` names (by index); the ms each took, and those fae was busy. */
    converseAmong: async (order: readonly number[], before: number): Promise<Measured> => {
      const measured = new Promise<Measured>(resolve => {
        onMeasured = resolve;
      });
      await E(isolate).converseAmong(harden([...order]), before);
      return measured;
    },
    /** fae's thread's used heap, in bytes, once garbage and drops are settled. */
    heapUsed: (): Promise<HeapReading> => E(isolate).heapUsed(),
    /** Writes a heap snapshot of fae's thread to `path`. */
    snapshot: (path: string): Promise<void> => E(isolate).snapshot(path),
    /** Profiles fae's thread's CPU from startProfile until stopProfile, which writes a .cpuprofile to `path`. */
    startProfile: (): Promise<void> => E(isolate).startProfile(),
    stopProfile: (path: string): Promise<void> => E(isolate).stopProfile(path),
    stop: async () => {
      await stopQuietly(daemon);
      abort(Error('bench over'));
      await worker.terminate();
    },
  };
};

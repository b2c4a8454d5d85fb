// August's follow* result (next spec §3.2): an exo PassableReader whose
// only methods are stream(synHead), readPattern() and readReturnPattern().
// The caller drives it with a chain of syn promises; the daemon answers
// with a chain of ack nodes `{ value, promise }`. With no buffer, the
// daemon pulls the follower only after each syn `{ value, promise: next }`;
// a syn `{ value, promise: null }` closes it (the follower's return), and
// the last ack has `promise: null`, as when the follower ends.
import { makeExo } from '@endo/exo';
import { M } from '@endo/patterns';
import { makePromiseKit } from '@endo/promise-kit';
import type { Instrument } from '../kernel/instrument.js';
import type { Follower } from './follow.js';
import { inBackground } from '../../background.js';

const PassableReaderInterface = M.interface('PassableReader', {
  stream: M.call(M.any()).returns(M.promise()),
  readPattern: M.call().returns(M.opt(M.pattern())),
  readReturnPattern: M.call().returns(M.opt(M.pattern())),
});

interface AckNode {
  readonly value: unknown;
  readonly promise: Promise<AckNode> | null;
}

const pump = async (follower: Follower, synHead: unknown, resolveHead: (node: AckNode | Promise<never>) => void) => {
  let syn = synHead;
  let resolveAck = resolveHead;
  try {
    for (;;) {
      // Each step waits for the caller's syn before pulling: that is the protocol.
      // eslint-disable-next-line no-await-in-loop
      const node = (await syn) as { value?: unknown; promise?: unknown } | null;
      if (node === null || typeof node !== 'object' || !('promise' in node)) {
        throw TypeError('Reader synchronization chain yielded an invalid node');
      }
      if (node.promise === null) {
        // eslint-disable-next-line no-await-in-loop
        const { value } = await follower.return(node.value);
        resolveAck(harden({ value, promise: null }));
        return;
      }
      syn = node.promise;
      // eslint-disable-next-line no-await-in-loop
      const result = await follower.next();
      if (result.done) {
        resolveAck(harden({ value: result.value, promise: null }));
        return;
      }
      const next = makePromiseKit<AckNode>();
      resolveAck(harden({ value: result.value, promise: next.promise }));
      resolveAck = next.resolve;
    }
  } catch (error) {
    await follower.return().catch(() => {});
    const rejection = Promise.reject(error);
    rejection.catch(() => {});
    resolveAck(rejection);
  }
};

export const makeStreamReader = (follower: Follower, instrument: Instrument): object =>
  makeExo('PassableReader', PassableReaderInterface, {
    stream: instrument(
      'stream',
      (synHead: unknown) => {
        const head = makePromiseKit<AckNode>();
        // The reader's end says how it ended; nothing else waits on the pump.
        inBackground(pump(follower, synHead, head.resolve), head.reject);
        return head.promise;
      },
      false,
    ),
    readPattern: () => undefined,
    readReturnPattern: () => undefined,
  });
harden(makeStreamReader);

// fae in a thread of its own, for heap readings of fae alone: the
// simulated daemon and CapTP's tables stay in the main thread, as the real
// daemon is another process. Talks CapTP over the thread's port; its model
// answers every message, and writes a short summary when asked for one.
import { parentPort } from 'node:worker_threads';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { Far } from '@endo/far';
import { makeCapTP } from '@endo/captp';
import type { ChatMessage, ChatResult, Provider } from '../../providers/types.js';
import type { CapletContext, GuestPowers, Ref } from '../../src/daemon/endo-types.js';
import { startFae } from '../../src/agent/fae.js';
import { releaseGarbage } from '../support/garbage.js';

if (parentPort === null) throw Error('isolated-fae-worker runs as a worker thread');
const port = parentPort;

const isSummaryRequest = (messages: readonly ChatMessage[]) =>
  messages[0]?.content.startsWith('You keep the memory of a conversation') ?? false;

const provider: Provider = harden({
  kind: 'openai',
  model: 'bench',
  chat: async (messages: readonly ChatMessage[]) => {
    const text = isSummaryRequest(messages)
      ? 'The correspondent asked many numbered questions; Fae answered each.'
      : `Answer to ${messages.at(-1)?.content.slice(0, 60)}`;
    return harden({ message: { role: 'assistant', content: text } }) as ChatResult;
  },
});

let fae: ReturnType<typeof startFae> | undefined;

const bootstrap = Far('IsolatedFae', {
  start: (powers: Ref<GuestPowers>, context: Ref<CapletContext>, env: Record<string, string>) => {
    fae = startFae(powers, context, { env, provider, write: () => {} });
    return fae;
  },
  /**
   * Resolves once fae has handled `count` messages. Asked here rather than
   * by polling status() across CapTP, whose every answer CapTP 4.5.1
   * keeps in this thread for good.
   */
  whenHandled: async (count: number) => {
    while ((fae?.status().handledMessages ?? 0) < count) {
      await new Promise(resolve => setTimeout(resolve, 10));
    }
  },
  /**
   * This thread's used heap, in bytes, after collections and CapTP drops:
   * in all, and in the spaces that hold compiled code and large objects
   * (such as the backing table of SES's harden WeakSet).
   */
  heapUsed: async () => {
    await releaseGarbage();
    const spaces = new Map(getHeapSpaceStatistics().map(space => [space.space_name, space.space_used_size]));
    return harden({
      total: getHeapStatistics().used_heap_size,
      code: spaces.get('code_space') ?? 0,
      largeObjects: spaces.get('large_object_space') ?? 0,
    });
  },
});

// The rejections CapTP carries reach their callers; it need not print them too.
const { dispatch } = makeCapTP('isolated-fae', (message: unknown) => port.postMessage(message), bootstrap, {
  gcImports: true,
  onReject: () => {},
});
port.on('message', message => dispatch(message));

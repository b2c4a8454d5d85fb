// The zero-latency model the side-by-side benches give every agent: for
// each message it calls `list`, then answers. fae delivers a plain answer
// itself; upstream fae delivers only what the model sends, so there the
// model answers with `send` to HOST and `dismiss` of the message, as
// upstream's system prompt asks, and then says it is done.
import { makePromiseKit } from '@endo/promise-kit';
import type { ChatMessage, ChatResult, Provider } from '../../providers/types.js';

export type ModelFor = 'fae' | 'upstream';

const toolCalls = (id: number, calls: readonly (readonly [string, Record<string, unknown>])[]) =>
  harden({
    message: {
      role: 'assistant',
      content: '',
      tool_calls: calls.map(([name, args], i) => ({
        id: `bench_${id}_${i}`,
        type: 'function',
        function: { name, arguments: JSON.stringify(args) },
      })),
    },
  }) as ChatResult;

const DONE = harden({ message: { role: 'assistant', content: 'done' } }) as ChatResult;

/** The tools the model called last. */
const lastCalled = (messages: readonly ChatMessage[]) =>
  messages.findLast(m => m.role === 'assistant')?.tool_calls?.map(call => call.function.name) ?? [];

/** list, then the answer, for every message; tells each first request. */
export const makeBenchModel = (agent: ModelFor) => {
  let firstRequest = makePromiseKit<void>();
  let id = 0;
  let answering: bigint | undefined;
  const provider: Provider = {
    kind: 'openai',
    model: 'bench',
    chat: async messages => {
      const last = messages.at(-1);
      if (last?.role === 'user') {
        firstRequest.resolve();
        id += 1;
        // Both agents head a message "Message #N from …".
        const number = /^Message #(\d+)/.exec(last.content)?.[1];
        answering = number === undefined ? undefined : BigInt(number);
        return toolCalls(id, [['list', {}]]);
      }
      if (agent === 'upstream' && lastCalled(messages).includes('list')) {
        return toolCalls(id, [
          ['send', { recipient: 'HOST', strings: ['done'] }],
          ['dismiss', { messageNumber: Number(answering) }],
        ]);
      }
      return DONE;
    },
  };
  return {
    provider,
    /** The number of the message the model is answering. */
    answering: () => answering,
    /** Resolves at the first model request after this call. */
    nextFirstRequest: () => {
      firstRequest = makePromiseKit<void>();
      return firstRequest.promise;
    },
  };
};

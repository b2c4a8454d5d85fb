// An in-process Provider for the agent's loop tests: each chat() call takes
// the next scripted step and records what it was asked. (Provider adapters
// themselves are tested over real HTTP in providers-*.test.ts.)
//
//   const llm = makeScriptedProvider([
//     { toolCalls: [{ name: 'list', arguments: {} }] },
//     { text: 'You have no pet names yet.' },
//   ]);
//   llm.requests[0].messages  // what fae sent on the first call
import { makePromiseKit } from '@endo/promise-kit';
import type {
  CacheHints,
  ChatMessage,
  ChatResult,
  Provider,
  StopReason,
  ToolSchema,
  Usage,
} from '../../providers/types.js';
import { ProviderError, type ProviderTrouble } from '../../providers/errors.js';

export interface ScriptedCall {
  readonly name: string;
  /** An object (sent as JSON) or raw argument text (sent as is). */
  readonly arguments?: Record<string, unknown> | string;
  readonly id?: string;
}

export type ScriptedStep =
  | {
      readonly text?: string;
      readonly toolCalls?: readonly ScriptedCall[];
      readonly usage?: Usage;
      readonly stopReason?: StopReason;
    }
  /** A failed call: a plain Error, or with `trouble` the ProviderError a real adapter rejects with. */
  | { readonly error: string; readonly trouble?: ProviderTrouble }
  | { readonly hang: true };

export type ScriptedReply = ScriptedStep | ((request: RecordedRequest) => ScriptedStep | Promise<ScriptedStep>);

export interface RecordedRequest {
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly ToolSchema[];
  /** The tool names offered, in order. */
  readonly toolNames: readonly string[];
  /** The cache hints the request came with (ChatOptions.cache), if any. */
  readonly cache?: CacheHints;
}

/** The words of the latest user message, without fae's "Message #N from NAME: " heading. */
export const lastUserWords = (messages: readonly { role: string; content: string }[]): string =>
  (messages.filter(m => m.role === 'user').at(-1)?.content ?? '').replace(/^Message #\d+ from [^:]*: /, '');

/** The number N of the last "Message #N" the model was shown. */
export const lastMessageNumber = (request: RecordedRequest) =>
  Number(/^Message #(\d+)/.exec(request.messages.filter(m => m.role === 'user').at(-1)?.content ?? '')?.[1]);

/** The results of the model's last round of tool calls, as it read them. */
export const lastToolResults = (request: RecordedRequest): string[] => {
  const results: string[] = [];
  for (let i = request.messages.length - 1; request.messages[i]?.role === 'tool'; i -= 1) results.unshift(request.messages[i].content);
  return results;
};

/** A reply that echoes the latest user message: "re: <its words>". */
export const echoReply = (request: { messages: readonly { role: string; content: string }[] }): ScriptedStep => ({
  text: `re: ${lastUserWords(request.messages)}`,
});

let idCounter = 0;

const toResult = (step: ScriptedStep): ChatResult => {
  if ('error' in step) {
    throw step.trouble === undefined ? Error(step.error) : new ProviderError(step.error, step.trouble);
  }
  if ('hang' in step) {
    throw Error('unreachable');
  }
  const toolCalls = (step.toolCalls ?? []).map(call => {
    idCounter += 1;
    return {
      id: call.id ?? `scripted_${idCounter}`,
      type: 'function' as const,
      function: {
        name: call.name,
        arguments:
          typeof call.arguments === 'string'
            ? call.arguments
            : JSON.stringify(call.arguments ?? {}),
      },
    };
  });
  return harden({
    message: {
      role: 'assistant',
      content: step.text ?? '',
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    },
    ...(step.usage ? { usage: step.usage } : {}),
    ...(step.stopReason ? { stopReason: step.stopReason } : {}),
  });
};

export const makeScriptedProvider = (script: readonly ScriptedReply[] = []) => {
  const queue = [...script];
  const requests: RecordedRequest[] = [];
  // The calls (numbered from 1) whose signal was aborted while they ran.
  const aborted: number[] = [];
  const waiters: ((request: RecordedRequest) => void)[] = [];
  const provider: Provider = {
    kind: 'openai',
    model: 'scripted',
    chat: async (messages, tools, { signal, cache } = {}) => {
      const request: RecordedRequest = harden({
        messages: JSON.parse(JSON.stringify(messages)),
        tools: JSON.parse(JSON.stringify(tools)),
        toolNames: tools.map(t => t.function.name),
        ...(cache === undefined ? {} : { cache }),
      });
      requests.push(request);
      const call = requests.length;
      for (const wake of waiters.splice(0)) wake(request);
      const next = queue.shift();
      if (next === undefined) {
        throw Error(`the scripted model has no reply left for call ${requests.length}`);
      }
      const step = typeof next === 'function' ? await next(request) : next;
      if ('hang' in step) {
        // Hangs until aborted, then rejects with the reason, as an adapter does.
        return new Promise<ChatResult>((_, reject) => {
          signal?.addEventListener('abort', () => {
            aborted.push(call);
            reject(signal.reason);
          });
        });
      }
      return toResult(step);
    },
  };
  return {
    provider,
    requests,
    aborted,
    /** Adds replies to the end of the script. */
    push: (...replies: ScriptedReply[]) => {
      queue.push(...replies);
    },
    /** Resolves when the model has been called `count` times in all. */
    whenCalled: (count: number): Promise<RecordedRequest> => {
      if (requests.length >= count) return Promise.resolve(requests[count - 1]);
      const kit = makePromiseKit<RecordedRequest>();
      const check = () => {
        if (requests.length >= count) kit.resolve(requests[count - 1]);
        else waiters.push(check);
      };
      waiters.push(check);
      return kit.promise;
    },
    remaining: () => queue.length,
  };
};

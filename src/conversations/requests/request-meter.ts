// What the conversations know of each request they prepare travels with
// the request itself (keyed by the frozen list the request preparation
// returned), never in a variable that another conversation's request
// could have set meanwhile, since turns of several conversations run at
// once:
//   - its token estimate: the token meter (tokens.ts) learns from every
//     model request how the provider's reported input size compares with
//     the estimate made for that same request;
//   - its cache hints (providers/types.ts, CacheHints): which conversation
//     it is and how much of it the next request will repeat, handed to
//     the provider with the request.
import type { CacheHints, ChatMessage, ChatOptions, Provider, ToolSchema } from '../../../providers/types.js';
import { makeTokenMeter } from './tokens.js';
import { ContextOverflowError } from '../../../providers/errors.js';

/** What is known of a prepared request. */
export interface Prepared {
  /** Its plain token estimate. */
  readonly estimate: number;
  readonly cache: CacheHints;
}

export const makeRequestMeter = () => {
  const meter = makeTokenMeter();
  /** What is known of each prepared request, while it is alive. */
  const known = new WeakMap<readonly ChatMessage[], Prepared>();
  return harden({
    /** The corrected count for a plain estimate. */
    scale: meter.scale,
    /** Notes what is known of `request` (frozen, sent as it is); returns it. */
    prepared: (request: readonly ChatMessage[], prepared: Prepared) => {
      known.set(request, harden(prepared));
      return request;
    },
    /**
     * `inner`, given each prepared request's cache hints, and learning from
     * what it reports against that request's estimate.
     */
    metered: (inner: Provider): Provider =>
      harden({
        kind: inner.kind,
        model: inner.model,
        chat: async (messages: readonly ChatMessage[], schemas: readonly ToolSchema[], options: ChatOptions = {}) => {
          const prepared = known.get(messages);
          // Not hardened: the options may hold a signal, which must stay abortable.
          const result = await inner.chat(messages, schemas, prepared ? { ...options, cache: prepared.cache } : options).catch(error => {
            // Refused as too long, saying how long: the estimates learn it, and the next request is cut by it.
            if (prepared !== undefined && error instanceof ContextOverflowError) meter.observe(prepared.estimate, error.requestTokens);
            throw error;
          });
          // A request not prepared here was not estimated: it teaches nothing.
          if (prepared !== undefined) meter.observe(prepared.estimate, result.usage?.inputTokens);
          return result;
        },
      }),
  });
};
harden(makeRequestMeter);
export type RequestMeter = ReturnType<typeof makeRequestMeter>;

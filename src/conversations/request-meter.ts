// The token meter (tokens.ts) learns from every model request how the
// provider's reported input size compares with the estimate made for that
// same request. Turns of several conversations run at once, so the
// estimate travels with the request itself (keyed by the frozen list the
// request preparation returned), never in a variable that another
// conversation's request could have set meanwhile.
import type { ChatMessage, ChatOptions, Provider, ToolSchema } from '../../providers/types.js';
import { makeTokenMeter } from './tokens.js';

export const makeRequestMeter = () => {
  const meter = makeTokenMeter();
  /** The estimate each prepared request was measured at, while it is alive. */
  const estimates = new WeakMap<readonly ChatMessage[], number>();
  return harden({
    /** The corrected count for a plain estimate. */
    scale: meter.scale,
    /** Notes that `request` (frozen, sent as it is) was estimated at `estimate` tokens; returns it. */
    estimated: (request: readonly ChatMessage[], estimate: number) => {
      estimates.set(request, estimate);
      return request;
    },
    /** `inner`, learning from each request what it reports against that request's estimate. */
    metered: (inner: Provider): Provider =>
      harden({
        kind: inner.kind,
        model: inner.model,
        chat: async (messages: readonly ChatMessage[], schemas: readonly ToolSchema[], options?: ChatOptions) => {
          const estimate = estimates.get(messages);
          const result = await inner.chat(messages, schemas, options);
          // A request not prepared here was not estimated: it teaches nothing.
          if (estimate !== undefined) meter.observe(estimate, result.usage?.inputTokens);
          return result;
        },
      }),
  });
};
harden(makeRequestMeter);
export type RequestMeter = ReturnType<typeof makeRequestMeter>;

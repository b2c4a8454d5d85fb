// Anthropic's prompt cache is asked for with breakpoints: cache_control on
// a block marks the end of a prefix to cache (the API reads tools, then
// system, then messages, in that order), and a later request that starts
// with the same prefix reads it from the cache at a tenth of the input
// price (writing it costs a quarter more, once). The API takes at most
// four breakpoints; fae sets three:
//   - on the last tool: the tools change seldom, and are the same for
//     every conversation;
//   - on the first system block, fae's standing instructions, also the
//     same for every conversation (a summary, when there is one, follows
//     in a block of its own);
//   - on the conversation's newest stable point, the end of what its next
//     request will repeat (CacheHints.stableMessages): the request's last
//     block as a rule, so each request reads what the one before it wrote.
// The markers are not part of what is cached: one that moves on to a later
// block leaves the prefix before it as it was.
import type {
  CacheControlEphemeral,
  MessageParam,
  TextBlockParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages/messages.js';

/** What a breakpoint says: cache up to here, for the default five minutes. */
const breakpoint = (): CacheControlEphemeral => ({ type: 'ephemeral' });

/** The request's parts that take breakpoints, as built for the wire (and still open to change). */
export interface CacheableRequest {
  readonly system: TextBlockParam[];
  readonly messages: MessageParam[];
  readonly tools: Tool[];
}

/** Where the stable point falls: after this many message blocks, or else this many system blocks. */
export interface StablePoint {
  readonly blocks: number;
  readonly systemBlocks: number;
}

/** Marks block `index` (counted over every message's blocks, in order). */
const markBlock = (messages: readonly MessageParam[], index: number) => {
  let before = 0;
  for (const { content } of messages) {
    if (typeof content === 'string') continue;
    if (index < before + content.length) {
      const block = content[index - before];
      // Every block fae sends takes one (text, tool_use, tool_result).
      (block as { cache_control?: CacheControlEphemeral }).cache_control = breakpoint();
      return;
    }
    before += content.length;
  }
};

/** Sets the breakpoints on `request` (at most three, of the four the API allows). */
export const markCacheBreakpoints = (request: CacheableRequest, stable: StablePoint) => {
  const lastTool = request.tools.at(-1);
  if (lastTool !== undefined) lastTool.cache_control = breakpoint();
  const [instructions] = request.system;
  if (instructions !== undefined) instructions.cache_control = breakpoint();
  if (stable.blocks > 0) {
    markBlock(request.messages, stable.blocks - 1);
  } else if (stable.systemBlocks > 1) {
    // Only the system part stays (a turn cut inside, say): its end, the summary.
    request.system[stable.systemBlocks - 1].cache_control = breakpoint();
  }
};
harden(markCacheBreakpoints);

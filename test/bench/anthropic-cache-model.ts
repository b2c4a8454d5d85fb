// A model of Anthropic's prompt cache, to price a run of requests as the
// API would bill them, from the bodies the real adapter put on the wire.
// What it follows (Anthropic's prompt-caching documentation):
//   - a request is a run of blocks, read in order: each tool, each system
//     block, each content block of each message;
//   - a block marked with cache_control is a breakpoint: the prefix that
//     ends there is written to the cache, unless it is shorter than the
//     model's minimum (1,024 tokens for Sonnet 4.5, 4,096 for Opus 4.5);
//   - at each breakpoint the API looks for a prefix cached before, ending
//     there or at one of the 20 block boundaries before it; the longest
//     found is read (billed at a tenth of the input price), what follows
//     it up to the last breakpoint is written (a quarter more than the
//     input price), and the rest is plain input;
//   - the markers are not part of what is cached.
// Entries live five minutes from their last use; a bench run is shorter,
// so none expires here. Tokens are estimated as bytes / 4 of each block's
// JSON as sent (without its marker), the estimate fae's own budget starts
// from (src/conversations/requests/tokens.ts).
import { createHash } from 'node:crypto';

// `any`: wire JSON, indexed freely.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

/** How far back from a breakpoint the API looks for a cached prefix, in blocks. */
const LOOKBACK_BLOCKS = 20;
const BYTES_PER_TOKEN = 4;

interface Block {
  /** Its JSON as sent, with the role it belongs to, without its marker. */
  readonly text: string;
  readonly marked: boolean;
}

/** The blocks of a Messages API body, in the order the API reads them. */
export const blocksOf = (body: Body): Block[] => {
  const block = (role: string, item: Body): Block => {
    const { cache_control: marker, ...rest } = item;
    return { text: JSON.stringify([role, rest]), marked: marker !== undefined };
  };
  const contentOf = (content: Body): Body[] => (typeof content === 'string' ? [{ type: 'text', text: content }] : content);
  return [
    ...(body.tools ?? []).map((tool: Body) => block('tools', tool)),
    ...(typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : (body.system ?? [])).map((item: Body) =>
      block('system', item),
    ),
    ...body.messages.flatMap((message: Body) => contentOf(message.content).map(item => block(message.role, item))),
  ];
};

/** What one request costs, in tokens. */
export interface PricedRequest {
  readonly tokens: number;
  readonly read: number;
  readonly written: number;
  readonly uncached: number;
}

/** The prompt of a body as one text: its blocks, in order, without markers. */
const promptText = (body: Body) =>
  blocksOf(body)
    .map(block => block.text)
    .join('');

/** Of `after`'s prompt bytes, the share that repeats the start of `before`'s. */
export const repeatedShare = (before: Body, after: Body) => {
  const [a, b] = [promptText(before), promptText(after)];
  const end = Math.min(a.length, b.length);
  let at = 0;
  while (at < end && a.charCodeAt(at) === b.charCodeAt(at)) at += 1;
  return Buffer.byteLength(b.slice(0, at)) / Buffer.byteLength(b);
};

/**
 * A cache for one run of requests (one organization's, for five minutes);
 * `price` each request in the order it was sent.
 */
export const makeAnthropicCache = (minimumTokens: number) => {
  const written = new Set<string>();
  const price = (body: Body): PricedRequest => {
    const blocks = blocksOf(body);
    // The key of the prefix ending at each block, and the tokens up to there.
    const keys: string[] = [];
    const tokensTo: number[] = [];
    let key = '';
    let bytes = 0;
    for (const { text } of blocks) {
      key = createHash('sha256').update(key).update(text).digest('hex');
      keys.push(key);
      bytes += Buffer.byteLength(text);
      tokensTo.push(bytes / BYTES_PER_TOKEN);
    }
    const breakpoints = blocks.flatMap(({ marked }, at) => (marked && tokensTo[at] >= minimumTokens ? [at] : []));
    let hit = -1;
    for (const at of breakpoints) {
      for (let back = at; back >= Math.max(0, at - LOOKBACK_BLOCKS); back -= 1) {
        if (written.has(keys[back])) {
          hit = Math.max(hit, back);
          break;
        }
      }
    }
    const last = breakpoints.at(-1) ?? -1;
    const read = hit >= 0 ? tokensTo[hit] : 0;
    const writtenNow = last > hit ? tokensTo[last] - read : 0;
    for (const at of breakpoints) written.add(keys[at]);
    const tokens = bytes / BYTES_PER_TOKEN;
    return {
      tokens,
      read,
      written: writtenNow,
      uncached: tokens - read - writtenNow,
    };
  };
  return { price };
};

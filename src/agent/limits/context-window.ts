// How many tokens one request may hold: FAE_CONTEXT_TOKENS, within what the
// server says it reads at once (asked once per provider: its model list,
// Ollama's /api/show), and within what a server's refusal taught ("this
// request exceeds the available context size (4096 tokens)"). The
// conversations cut each request's window to it, at the time it is made.
import type { Logger } from '../../logging/log.js';

/** Of what a refusal says the server holds, this much is kept for fae's estimates, which may count low. */
const MARGIN = 0.85;

export const makeContextWindow = ({ configured, logger }: { readonly configured: number; readonly logger: Logger }) => {
  /** What the current provider's server says it holds. */
  let server: number | undefined;
  /** What a refusal of the server taught, below what it said. */
  let learned: number | undefined;
  const tokens = () => Math.min(configured, server ?? Infinity, learned ?? Infinity);
  return harden({
    tokens,
    /** The server's word (undefined: it says nothing): a new word replaces what refusals taught. */
    fromServer: (holds: number | undefined) => {
      if (holds === server) return;
      const before = tokens();
      [server, learned] = [holds, undefined];
      if (tokens() !== before) logger.event('context-window', { tokens: tokens(), server: holds, configured });
    },
    /**
     * A request was refused as too long; `holds` is what the server said it
     * holds, when it said. Resolves whether requests are now smaller (only
     * then is one worth sending again).
     */
    refused: (holds: number | undefined) => {
      const before = tokens();
      const next = Math.floor((holds ?? before) * MARGIN);
      if (next >= before || next <= 0) return false;
      learned = next;
      logger.warn('context-window-narrowed', { tokens: next, server: holds, configured });
      return true;
    },
  });
};
harden(makeContextWindow);
export type ContextWindow = ReturnType<typeof makeContextWindow>;

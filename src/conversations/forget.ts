// Forgetting a correspondent: every thread of theirs, stored or held, and
// the turn open in one (which then keeps nothing), and only theirs. When
// the daemon refuses a removal, the thread it could not remove is kept
// whole (the store removes the oldest generation first), none is left
// with holes, and forgetting says so, for the sender to ask again.
import type { Logger } from '../logging/log.js';
import type { Redact } from '../logging/redact.js';
import type { ConversationMemory } from './conversation-memory.js';
import type { OwnCopyLinks } from './own-copies/own-copy-links.js';
import type { ConversationStore } from './store/store.js';
import type { TurnLines } from './turn-lines.js';

export interface ForgetOptions {
  readonly memory: ConversationMemory;
  readonly store: ConversationStore;
  readonly lines: TurnLines;
  readonly links: OwnCopyLinks;
  readonly logger: Logger;
  readonly redact: Redact;
}

export const makeForget = ({ memory, store, lines, links, logger, redact }: ForgetOptions) => {
  const { sync } = memory;

  /** Forgets the thread `key`; the links of its own copies, found while it was there. Rejects when refused. */
  const forgetThread = async (key: string) => {
    const copies = links.of(key);
    await memory.remove(key);
    lines.forget(key);
    return copies;
  };

  /**
   * Forgets every thread of `correspondent`; how many. Rejects, saying so,
   * when the daemon refused.
   */
  return async (correspondent: string) => {
    if (!(await sync.ensureListed())) {
      throw Error(
        `could not forget the conversation: the conversation store cannot be listed (${sync.status().storageError}). Nothing was forgotten; try again later`,
      );
    }
    const keys = new Set([
      ...store.keysOf(correspondent),
      ...memory.held.pinnedKeysOf(correspondent),
      ...lines.openKeysOf(correspondent),
    ]);
    const outcomes = await Promise.allSettled([...keys].map(forgetThread));
    const failures = outcomes.flatMap(outcome => (outcome.status === 'rejected' ? [outcome.reason] : []));
    // The copies of what is forgotten teach nothing any more.
    await links.release(outcomes.flatMap(outcome => (outcome.status === 'fulfilled' ? outcome.value : [])));
    const forgotten = keys.size - failures.length;
    logger.event('conversation-forgotten', { conversations: forgotten });
    sync.checkRecovered();
    if (failures.length > 0) {
      const reason = redact(failures[0] instanceof Error ? failures[0].message : String(failures[0]));
      logger.warn('conversation-not-forgotten', { conversations: failures.length, error: reason });
      const kept =
        forgotten === 0 ? 'Nothing was forgotten' : `${forgotten} of ${keys.size} threads were forgotten; the others are kept whole`;
      throw Error(`could not forget the conversation: ${reason}. ${kept}; try again later`);
    }
    return forgotten;
  };
};
harden(makeForget);

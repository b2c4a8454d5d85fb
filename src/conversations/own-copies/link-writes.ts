// The links of fae's own copies that came after their conversation's
// latest record. They used to wait, undismissed in fae's inbox, for that
// conversation's next turn, which may never come: with every correspondent
// who stops writing one more copy stayed (and the daemon connection's
// record of it). Now a conversation whose copies have waited LINK_PAUSE_MS
// with no turn of its own open or in line has them added to its latest
// turn record (store-sync.ts), and they are dismissed. A turn that comes
// within the pause carries them in its own record, as before, at no extra
// write: a correspondent writing back at once costs nothing more. The copy
// of a turn's own answer mostly goes with that turn's record: the turn
// waits for it, briefly (own-copy-links.ts), so only a copy that comes
// late is written here.
import type { Logger } from '../../logging/log.js';
import type { ConversationMemory } from '../conversation-memory.js';
import { holdsMessage } from '../conversation-state.js';
import type { OwnCopy } from './own-copies.js';
import type { OwnCopyLinks } from './own-copy-links.js';
import type { TurnLines } from '../turn-lines.js';

/**
 * How long own copies wait for their conversation's next turn before their
 * links are written on their own: long enough for a correspondent (or a
 * bench) writing back at once, short enough that the conversation is still
 * held (64 others would have to be used meanwhile to push it out, and
 * reading it back costs more than the write).
 */
export const LINK_PAUSE_MS = 250;

export interface LinkWritesOptions {
  readonly memory: ConversationMemory;
  readonly lines: TurnLines;
  readonly links: Pick<OwnCopyLinks, 'of' | 'release'>;
  readonly logger: Logger;
  readonly pauseMs?: number;
}

export const makeLinkWrites = ({ memory, lines, links, logger, pauseMs = LINK_PAUSE_MS }: LinkWritesOptions) => {
  /** The pause of each conversation with copies waiting, by key. */
  const pauses = new Map<string, ReturnType<typeof setTimeout>>();
  let stopped = false;

  /**
   * Writes the links of conversation `key`'s waiting copies into its latest
   * turn record, unless a turn of its own will. A conversation that fell
   * out of memory is read back first; one that cannot be read now keeps
   * its copies waiting, in the inbox, for its next record or a restart.
   */
  const write = async (key: string, correspondent: string) => {
    // Gone with a turn's record meanwhile (or with the conversation).
    if (links.of(key).length === 0) return;
    if (lines.busy(key)) {
      // Its turn's record will carry them; should that turn be abandoned, this tries again.
      waiting(key, correspondent);
      return;
    }
    const conversation = await memory.find(key, correspondent);
    if (conversation === undefined) return;
    // Copies read again (after a restart) whose links a turn holds already: let go, not linked twice.
    const linked = links.of(key).filter(copy => holdsMessage(conversation, copy.messageId));
    if (linked.length > 0) await links.release(linked);
    if (links.of(key).length === 0) return;
    let copies: readonly OwnCopy[] = [];
    const stored = await memory.sync.addSent(conversation, () => {
      copies = lines.busy(key) ? [] : links.of(key);
      return copies.map(copy => copy.messageId);
    });
    if (!stored) return;
    for (const copy of copies) memory.held.noteId(copy.messageId, key);
    await links.release(copies);
  };

  /** An own copy of conversation `key` (of `correspondent`) waits for its link to be stored. */
  const waiting = (key: string, correspondent: string) => {
    if (stopped || pauses.has(key)) return;
    const pause = setTimeout(() => {
      pauses.delete(key);
      write(key, correspondent).catch(error => logger.warn('own-copy-links-not-stored', { conversation: key, error }));
    }, pauseMs);
    pause.unref?.();
    pauses.set(key, pause);
  };

  return harden({
    waiting,
    /** fae stops: nothing more is written (the copies wait in the inbox for the next start). */
    stop: () => {
      stopped = true;
      for (const pause of pauses.values()) clearTimeout(pause);
      pauses.clear();
    },
  });
};
harden(makeLinkWrites);
export type LinkWrites = ReturnType<typeof makeLinkWrites>;

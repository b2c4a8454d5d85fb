// Who gave fae each capability it kept from its mail. A tool a
// correspondent mailed is that correspondent's: fae offers it in its
// turns and the host's, never in anyone else's, whose words and data it
// would otherwise see (a "weather" tool of alice's, called in bob's turn
// with bob's question). It may also go back to whoever gave it unasked.
//
// Noted as the model keeps an attachment (adopt, adoptTool, or a copy out
// of the mail hub), by the capability's id, so renaming or moving it
// changes nothing; kept in fae's directory, sealed from the tools. What
// fae has no note of (the host's own tools) is offered to everyone.
import { E } from '@endo/far';
import { M, matches } from '@endo/patterns';
import type { GuestPowers, Ref } from '../../daemon/endo-types.js';
import type { Logger } from '../../logging/log.js';
import { makeOrderedWrites } from '../../daemon/ordered-writes.js';

/** The sealed name the notes are kept under. */
export const ADOPTED_FROM_NAME = 'adopted-from';

/**
 * Notes kept at most: past it, a correspondent's turn keeps no more
 * attachments until the host removes some (a capability fae cannot note
 * the giver of would pass for the host's).
 */
export const ADOPTED_KEPT = 4096;

interface Note {
  /** The capability's formula id. */
  readonly id: string;
  /** Who gave it: the sender's raw id. */
  readonly from: string;
}

const StoredShape = M.splitRecord({ notes: M.arrayOf(M.splitRecord({ id: M.string(), from: M.string() })) });

export const makeAdoptedFrom = ({ powers, logger }: { readonly powers: Ref<GuestPowers>; readonly logger: Logger }) => {
  const givers = new Map<string, string>();
  /** Whether the notes were read: until then every kept capability counts as someone's (not offered to others). */
  let known = false;
  const store = makeOrderedWrites(powers, ADOPTED_FROM_NAME);
  const write = () => store({ notes: [...givers].map(([id, from]) => harden({ id, from })) });

  const read = async () => {
    try {
      const value = (await E(powers).has(ADOPTED_FROM_NAME)) ? await E(powers).lookup(ADOPTED_FROM_NAME) : harden({ notes: [] });
      if (!matches(value, StoredShape)) {
        logger.warn('adopted-from-unreadable', { name: ADOPTED_FROM_NAME });
        return;
      }
      for (const { id, from } of (value as { notes: readonly Note[] }).notes) if (!givers.has(id)) givers.set(id, from);
      known = true;
    } catch (error) {
      logger.warn('adopted-from-unread', { error });
    }
  };

  return harden({
    start: read,
    /**
     * Notes, before it is kept, that capability `id` came from `from`'s
     * mail; resolves once noted, and rejects (it must not be kept) when it
     * cannot be. The host's own gifts need no note.
     */
    keeping: async (id: string, from: string, fromHost: boolean) => {
      if (fromHost) return;
      if (!known) await read();
      if (!known) throw Error('fae cannot note who gave it this just now; try again');
      if (givers.get(id) === from) return;
      if (givers.size >= ADOPTED_KEPT) throw Error(`fae keeps ${ADOPTED_KEPT} capabilities from its correspondents already; the host must remove some first`);
      givers.set(id, from);
      await write();
    },
    /** Who gave capability `id`, if a correspondent did; undefined for the host's own (or while unread: see mayUse). */
    giverOf: (id: string) => givers.get(id),
    /** Whether a tool of id `id` may be offered in the turns of `correspondent`. */
    mayUse: (id: string | undefined, correspondent: string, isHost: boolean) => {
      if (isHost) return true;
      if (!known || id === undefined) return false;
      const giver = givers.get(id);
      return giver === undefined || giver === correspondent;
    },
  });
};
harden(makeAdoptedFrom);
export type AdoptedFrom = ReturnType<typeof makeAdoptedFrom>;

// The names fae's model bound in fae's directory. Anyone's turn can make
// the model bind a name ("copy your mail's sender to `host`", "remove
// `alice`, then call me alice"), so a name the model wrote says nothing
// about who someone is: fae names a correspondent, and reads the `@WHO`
// of its approval rules, only by names the model did not write.
//
// The built-ins note each name before they bind it (sealed-powers.ts), so
// a bind the daemon carries out is always noted; the note outlives
// restarts in fae's directory, sealed from the tools like its
// conversations. A name the model removes is forgotten. When the record
// cannot be read, no name is trusted until it can: the safe side (every
// sender unnamed, every rule for everyone).
import { E } from '@endo/far';
import { M, matches } from '@endo/patterns';
import type { GuestPowers, Ref } from '../../daemon/endo-types.js';
import type { Logger } from '../../logging/log.js';
import { makeOrderedWrites } from '../../daemon/ordered-writes.js';

/** The sealed name the record is kept under. */
export const MODEL_NAMES_NAME = 'model-names';

/**
 * Names the record holds at most: past it, the model binds no new name
 * until it removes some (a name it cannot note, it may not bind).
 */
export const MODEL_NAMES_KEPT = 4096;

const StoredShape = M.splitRecord({ names: M.arrayOf(M.string()) });

/** A path as the record keeps it: "alice", "tools/greet". */
const keyOf = (path: readonly string[]) => path.join('/');

export const makeModelNames = ({ powers, logger }: { readonly powers: Ref<GuestPowers>; readonly logger: Logger }) => {
  let names = new Set<string>();
  /** Whether the record has been read (or found absent): until then nothing is trusted. */
  let known = false;
  const store = makeOrderedWrites(powers, MODEL_NAMES_NAME);

  const read = async () => {
    try {
      const value = (await E(powers).has(MODEL_NAMES_NAME)) ? await E(powers).lookup(MODEL_NAMES_NAME) : harden({ names: [] });
      if (!matches(value, StoredShape)) {
        // Not fae's record: trust nothing, and leave it as it is.
        logger.warn('model-names-unreadable', { name: MODEL_NAMES_NAME });
        return;
      }
      names = new Set([...(value as { names: readonly string[] }).names, ...names]);
      known = true;
    } catch (error) {
      logger.warn('model-names-unread', { error });
    }
  };

  /** Stores the record as it is now; one write at a time, in order. */
  const write = () => store({ names: [...names] });

  return harden({
    /** Reads the record (at start, before any turn). */
    start: read,
    /**
     * Notes that the model is about to bind `path`; resolves once noted.
     * Rejects, and the bind must not happen, when the note cannot be kept.
     */
    willBind: async (path: readonly string[]) => {
      if (!known) await read();
      if (!known) throw Error("fae cannot note the names its model makes just now; try again");
      const key = keyOf(path);
      if (names.has(key)) return;
      if (names.size >= MODEL_NAMES_KEPT) {
        throw Error(`you have made ${MODEL_NAMES_KEPT} names already; remove some you no longer need first`);
      }
      names.add(key);
      await write();
    },
    /** Notes that `path` was unbound by the model (best effort: a name noted too long is only distrusted). */
    unbound: async (path: readonly string[]) => {
      if (!names.delete(keyOf(path))) return;
      await write().catch(error => logger.warn('model-names-not-stored', { error }));
    },
    /** Whether `path` is a name the model did not write (false while the record is unread). */
    trusts: (path: readonly string[]) => known && !names.has(keyOf(path)),
    /** Whether `path` is a name the model wrote (false while the record is unread). */
    madeByModel: (path: readonly string[]) => known && names.has(keyOf(path)),
  });
};
harden(makeModelNames);
export type ModelNames = ReturnType<typeof makeModelNames>;

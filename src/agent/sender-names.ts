// The names fae's directory holds for a sender, read once and then kept
// while fae's top-level names stay as they are. The id of a sender never
// changes, but the names can (the host may rename or remove them), so the
// cache lives only while fae watches its own names (src/daemon/own-names.ts):
// any change empties it, and so does losing the watch, after which every
// message asks the daemon again until the watch is back. An answer that
// was on its way while a change came is used but not kept. What is left
// is the moment between a rename and fae hearing of it, the same for any
// reader of the daemon.
import type { OwnNamesWatch } from '../daemon/own-names.js';

/** Senders remembered at most; the oldest go first. */
const LIMIT = 1024;

export type SenderNames = (from: string) => Promise<readonly string[]>;

export const makeSenderNames = (read: SenderNames, ownNames: OwnNamesWatch): SenderNames => {
  const known = new Map<string, readonly string[]>();
  // Counts the changes seen, so an answer read across one is not kept.
  let changes = 0;
  const forgetAll = () => {
    changes += 1;
    known.clear();
  };
  ownNames.listen({ onChange: forgetAll, onLost: forgetAll });
  return async (from: string) => {
    const kept = known.get(from);
    if (kept !== undefined) return kept;
    const before = changes;
    const watched = ownNames.isFollowing();
    const names = harden([...(await read(from))]);
    if (watched && ownNames.isFollowing() && changes === before) {
      known.set(from, names);
      if (known.size > LIMIT) known.delete(known.keys().next().value as string);
    }
    return names;
  };
};
harden(makeSenderNames);

// The conversations fae keeps in memory, bounded whatever the number of
// correspondents: the most recently used ones, HELD_LIMIT of them (one that
// falls out is read back from the store when its correspondent writes
// again), and the pinned ones, which never fall out while pinned (a turn
// is open in them, or they hold turns not stored yet). Beside them, which
// conversation a message id belongs to, for the ids of the conversations
// held (ID_LIMIT at most): finding a thread then reads no conversation but
// its own. The ids of a conversation that falls out go with it: only a
// held conversation is found by them, and a table of every id seen would
// grow with the correspondents. So do the ids a summary lets go of
// (compaction.ts): a long conversation would otherwise fill the table with
// ids it holds no more.
import { makeRecentMap } from '../recent-map.js';

/** Conversations held without a pin, at most, unless FAE_HELD_CONVERSATIONS says otherwise. */
export const HELD_LIMIT = 64;
/** Message ids whose conversation is known at once, at most. */
export const ID_LIMIT = 2048;
/** Conversations status() describes, the latest used first. */
const RECENT_LIMIT = 8;

/**
 * Which conversation each of the latest `limit` message ids belongs to: a
 * plain Map in the order ids were noted (noting one again moves it last).
 * Not a cache-map, which keeps a cell and a one-entry Map per entry, some
 * 300 bytes beside the id itself: at ID_LIMIT ids, 0.6 MB of fae's heap.
 */
const makeIdIndex = (limit: number) => {
  const keyOf = new Map<string, string>();
  return {
    note: (id: string, key: string) => {
      keyOf.delete(id);
      keyOf.set(id, key);
      if (keyOf.size > limit) keyOf.delete(keyOf.keys().next().value as string);
    },
    keyOf: (id: string) => keyOf.get(id),
    /** Forgets `id`, if it is still noted for conversation `key`. */
    forget: (id: string, key: string) => {
      if (keyOf.get(id) === key) keyOf.delete(id);
    },
    size: () => keyOf.size,
  };
};

interface Keyed {
  readonly key: string;
  readonly correspondent: string;
}

export interface HeldOptions<C> {
  /** The ids of the messages `conversation` holds, to forget when it falls out of memory. */
  readonly idsOf?: (conversation: C) => Iterable<string>;
}

export const makeHeldConversations = <C extends Keyed>(limit = HELD_LIMIT, { idsOf = () => [] }: HeldOptions<C> = {}) => {
  /** Pinned conversations, with how many pins each has. */
  const pinned = new Map<string, { readonly conversation: C; count: number }>();
  const ids = makeIdIndex(ID_LIMIT);
  let recent: readonly string[] = [];

  const forgetIds = (conversation: C) => {
    for (const id of idsOf(conversation)) ids.forget(id, conversation.key);
  };

  /** The unpinned conversations kept, HELD_LIMIT of them; one that falls out takes its ids along. */
  const cache = makeRecentMap<string, C>(limit, (key, fallen) => {
    // A pinned one is still held: its ids still find it.
    if (!pinned.has(key)) forgetIds(fallen);
  });

  const touch = (key: string) => {
    recent = [key, ...recent.filter(known => known !== key)].slice(0, RECENT_LIMIT);
  };

  const get = (key: string): C | undefined => {
    const conversation = pinned.get(key)?.conversation ?? cache.get(key);
    if (conversation !== undefined) touch(key);
    return conversation;
  };

  /** Keeps `conversation` held until the returned function is called. */
  const pin = (conversation: C) => {
    const entry = pinned.get(conversation.key) ?? { conversation, count: 0 };
    entry.count += 1;
    pinned.set(conversation.key, entry);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      entry.count -= 1;
      if (entry.count > 0 || pinned.get(conversation.key) !== entry) return;
      pinned.delete(conversation.key);
      // Back among the others: it falls out in its turn.
      cache.set(conversation.key, conversation);
    };
  };
  /** The pins keepPinned holds, by key. */
  const standing = new Map<string, () => void>();

  return harden({
    get,
    /** Holds `conversation` (replacing any held under its key). */
    put: (conversation: C) => {
      cache.set(conversation.key, conversation);
      const pin = pinned.get(conversation.key);
      if (pin !== undefined && pin.conversation !== conversation) pinned.set(conversation.key, { conversation, count: pin.count });
      touch(conversation.key);
    },
    pin,
    /**
     * Keeps `conversation` pinned while `wanted` (say, while the store is
     * behind it): one such pin per key, however often it is asked for.
     */
    keepPinned: (conversation: C, wanted: boolean) => {
      const release = standing.get(conversation.key);
      if (wanted && release === undefined) standing.set(conversation.key, pin(conversation));
      if (!wanted && release !== undefined) {
        standing.delete(conversation.key);
        release();
      }
    },
    /** Lets go of everything held under `key`, pins and all. */
    drop: (key: string) => {
      const conversation = pinned.get(key)?.conversation ?? cache.get(key);
      if (conversation !== undefined) forgetIds(conversation);
      cache.delete(key);
      pinned.delete(key);
      standing.delete(key);
      recent = recent.filter(known => known !== key);
    },
    /** The keys of `correspondent`'s pinned conversations. */
    pinnedKeysOf: (correspondent: string) =>
      [...pinned.values()].filter(pin => pin.conversation.correspondent === correspondent).map(pin => pin.conversation.key),
    /** The pinned conversations. */
    pinned: () => [...pinned.values()].map(pin => pin.conversation),
    /** The keys of the pinned conversations. */
    pinnedKeys: () => [...pinned.keys()],
    /** The latest used conversations still held, newest first. */
    recent: () => recent.map(key => pinned.get(key)?.conversation ?? cache.get(key)).filter(c => c !== undefined),
    /** Notes that message `id` belongs to the conversation `key`. */
    noteId: ids.note,
    /** Forgets `id`, if it is still noted for the conversation `key` (which holds it no more). */
    forgetId: ids.forget,
    /** The conversation key message `id` was last noted for, if still known. */
    keyOfId: ids.keyOf,
    /** How many message ids are noted (at most ID_LIMIT). */
    idCount: ids.size,
  });
};
harden(makeHeldConversations);

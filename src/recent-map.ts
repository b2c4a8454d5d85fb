// A map that keeps the `limit` entries used last: reading or writing an
// entry makes it the latest, and writing one past the limit lets the
// least recently used go (told to `onEvicted`). A plain Map in the order
// of use, the oldest first. Not @endo/cache-map: over a Map (the only
// form that takes strings and numbers as keys) its version 1.1 keeps the
// key of every entry it ever let go, so a table meant to be bounded grew
// with every conversation, form or request fae ever had.

export interface RecentMap<K, V> {
  readonly get: (key: K) => V | undefined;
  readonly has: (key: K) => boolean;
  readonly set: (key: K, value: V) => void;
  readonly delete: (key: K) => boolean;
  readonly clear: () => void;
  readonly size: () => number;
}

export const makeRecentMap = <K, V>(limit: number, onEvicted: (key: K, value: V) => void = () => {}): RecentMap<K, V> => {
  const entries = new Map<K, V>();
  const touch = (key: K) => {
    const value = entries.get(key);
    if (value === undefined && !entries.has(key)) return false;
    entries.delete(key);
    entries.set(key, value as V);
    return true;
  };
  return harden({
    get: (key: K) => (touch(key) ? entries.get(key) : undefined),
    has: touch,
    set: (key: K, value: V) => {
      entries.delete(key);
      entries.set(key, value);
      while (entries.size > limit) {
        const [oldest, evicted] = entries.entries().next().value as [K, V];
        entries.delete(oldest);
        onEvicted(oldest, evicted);
      }
    },
    delete: (key: K) => entries.delete(key),
    clear: () => entries.clear(),
    size: () => entries.size,
  });
};
harden(makeRecentMap);

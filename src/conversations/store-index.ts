// What the conversation store knows of what is stored without asking the
// daemon: the generations of each conversation (from the listing and from
// its own writes), the generation its new turns go to, and whether it was
// read in this incarnation (only then may a new generation replace it).
// Kept by correspondent too, so that one correspondent's threads are found
// without a scan of everyone's.
import { correspondentPrefix } from './threads.js';

/** The length of a key's correspondent part (threads.ts). */
const PREFIX_LENGTH = correspondentPrefix('').length;

export const makeStoreIndex = () => {
  /** The generations present in the store, per key, newest first. */
  const generations = new Map<string, number[]>();
  /** The generation new turns go to, once it is known to be sound. */
  const live = new Map<string, number>();
  /** Keys whose stored generations were read (sound or not) in this incarnation. */
  const judged = new Set<string>();
  /**
   * The stored keys, by their correspondent part: the key itself while it
   * is the only one (most correspondents have one thread), a Set beyond.
   * A Set for each of a thousand correspondents was 140 bytes apiece.
   */
  const byCorrespondent = new Map<string, string | Set<string>>();

  const generationsOf = (key: string): readonly number[] => generations.get(key) ?? [];

  const setGenerations = (key: string, known: number[]) => {
    generations.set(key, known.sort((a, b) => b - a));
    const prefix = key.slice(0, PREFIX_LENGTH);
    const listed = byCorrespondent.get(prefix);
    if (listed === undefined || listed === key) byCorrespondent.set(prefix, key);
    else if (typeof listed === 'string') byCorrespondent.set(prefix, new Set([listed, key]));
    else listed.add(key);
  };

  const unlist = (key: string) => {
    const prefix = key.slice(0, PREFIX_LENGTH);
    const listed = byCorrespondent.get(prefix);
    if (listed === key) byCorrespondent.delete(prefix);
    if (typeof listed === 'string') return;
    listed?.delete(key);
    if (listed?.size === 1) byCorrespondent.set(prefix, [...listed][0]);
  };

  return harden({
    /** Forgets everything: the store is listed anew. */
    clear: () => {
      generations.clear();
      live.clear();
      judged.clear();
      byCorrespondent.clear();
    },
    generationsOf,
    /** Generation `generation` of `key` is in the store. */
    addGeneration: (key: string, generation: number) => setGenerations(key, [...generationsOf(key), generation]),
    /** Generation `generation` of `key` is removed from the store. */
    removeGeneration: (key: string, generation: number) => {
      generations.set(key, generationsOf(key).filter(g => g !== generation));
    },
    /** The generation new turns of `key` go to, if known. */
    liveOf: (key: string) => live.get(key),
    /** `key` was read (or written anew) in this incarnation; its new turns go to `generation`, when given. */
    judge: (key: string, generation?: number) => {
      judged.add(key);
      if (generation !== undefined) live.set(key, generation);
    },
    /** Whether `key` was read (or written anew) in this incarnation. */
    judged: (key: string) => judged.has(key),
    /** The generations of `key` older than the one its new turns go to. */
    olderThanLive: (key: string) => {
      const current = live.get(key);
      return current === undefined ? [] : generationsOf(key).filter(g => g < current);
    },
    /** Nothing is stored under `key` any more. */
    forget: (key: string) => {
      generations.delete(key);
      live.delete(key);
      judged.delete(key);
      unlist(key);
    },
    isStored: (key: string) => generations.has(key),
    /** The stored keys of `correspondent`. */
    keysOf: (correspondent: string) => {
      const listed = byCorrespondent.get(correspondentPrefix(correspondent));
      return typeof listed === 'string' ? [listed] : [...(listed ?? [])];
    },
    keys: () => [...generations.keys()],
    count: () => generations.size,
  });
};
harden(makeStoreIndex);

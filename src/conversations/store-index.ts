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
  /** The stored keys, by their correspondent part. */
  const byCorrespondent = new Map<string, Set<string>>();

  const generationsOf = (key: string): readonly number[] => generations.get(key) ?? [];

  const setGenerations = (key: string, known: number[]) => {
    generations.set(key, known.sort((a, b) => b - a));
    const prefix = key.slice(0, PREFIX_LENGTH);
    byCorrespondent.set(prefix, (byCorrespondent.get(prefix) ?? new Set()).add(key));
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
      const prefix = key.slice(0, PREFIX_LENGTH);
      const keys = byCorrespondent.get(prefix);
      keys?.delete(key);
      if (keys?.size === 0) byCorrespondent.delete(prefix);
    },
    isStored: (key: string) => generations.has(key),
    /** The stored keys of `correspondent`. */
    keysOf: (correspondent: string) => [...(byCorrespondent.get(correspondentPrefix(correspondent)) ?? [])],
    keys: () => [...generations.keys()],
    count: () => generations.size,
  });
};
harden(makeStoreIndex);

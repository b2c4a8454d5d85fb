// What the conversation store knows of what is stored without asking the
// daemon: the generations of each conversation (from the listing and from
// its own writes), the generation its new turns go to, and whether it was
// read in this incarnation (only then may a new generation replace it).
// Kept by correspondent too, so that one correspondent's threads are found
// without a scan of everyone's.
import { correspondentPrefix } from '../threads.js';

/** The length of a key's correspondent part (threads.ts). */
const PREFIX_LENGTH = correspondentPrefix('').length;

/**
 * What is known of one stored conversation: one small record, rather than
 * an entry in each of three tables and an array (some 250 bytes for each
 * of a thousand correspondents).
 */
interface Stored {
  /** Its generations in the store, newest first: a number while there is one, as there mostly is. */
  generations: number | readonly number[];
  /** The generation new turns go to, once it is known to be sound. */
  live: number | undefined;
  /** Whether its stored generations were read (sound or not) in this incarnation. */
  judged: boolean;
  /** The first sequence number of the live generation's latest chunk of turns (store.ts), if known. */
  chunk: number | undefined;
  /**
   * The nodes of the live generation (their sequence numbers, oldest first),
   * when fae knows every one (it wrote or listed them): reading it back
   * then needs no listing. A number while there is one, as there mostly is.
   */
  nodes: number | readonly number[] | undefined;
}

export const makeStoreIndex = () => {
  const stored = new Map<string, Stored>();
  /**
   * The stored keys, by their correspondent part: the key itself while it
   * is the only one (most correspondents have one thread), a Set beyond.
   * A Set for each of a thousand correspondents was 140 bytes apiece.
   */
  const byCorrespondent = new Map<string, string | Set<string>>();

  const generationsOf = (key: string): readonly number[] => {
    const known = stored.get(key)?.generations;
    return typeof known === 'number' ? [known] : (known ?? []);
  };

  const setGenerations = (key: string, known: number[]) => {
    const sorted = known.sort((a, b) => b - a);
    const entry = stored.get(key);
    const generations = sorted.length === 1 ? sorted[0] : sorted;
    if (entry !== undefined) {
      entry.generations = generations;
      return;
    }
    stored.set(key, { generations, live: undefined, judged: false, chunk: undefined, nodes: undefined });
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
      stored.clear();
      byCorrespondent.clear();
    },
    generationsOf,
    /** Generation `generation` of `key` is in the store. */
    addGeneration: (key: string, generation: number) => setGenerations(key, [...generationsOf(key), generation]),
    /** Generation `generation` of `key` is removed from the store. */
    removeGeneration: (key: string, generation: number) => {
      if (!stored.has(key)) return;
      const left = generationsOf(key).filter(g => g !== generation);
      // None left: nothing of `key` is stored.
      if (left.length === 0) stored.delete(key);
      else setGenerations(key, left);
    },
    /** The generation new turns of `key` go to, if known. */
    liveOf: (key: string) => stored.get(key)?.live,
    /**
     * `key` was read (or written anew) in this incarnation; its new turns go
     * to `generation`, when given. Nothing is kept of a key not stored.
     */
    judge: (key: string, generation?: number) => {
      const entry = stored.get(key);
      if (entry === undefined) return;
      entry.judged = true;
      if (generation !== undefined) entry.live = generation;
    },
    /** The first sequence number of `key`'s latest chunk of turns, if known. */
    chunkOf: (key: string) => stored.get(key)?.chunk,
    /** `key`'s latest chunk starts at `seq` (undefined: its next turn starts one). */
    setChunk: (key: string, seq: number | undefined) => {
      const entry = stored.get(key);
      if (entry !== undefined) entry.chunk = seq;
    },
    /** The nodes of `key`'s live generation, when every one is known. */
    nodesOf: (key: string): readonly number[] | undefined => {
      const nodes = stored.get(key)?.nodes;
      return typeof nodes === 'number' ? [nodes] : nodes;
    },
    /** `key`'s live generation holds the nodes `seqs` (a new generation, or one listed). */
    setNodes: (key: string, seqs: readonly number[]) => {
      const entry = stored.get(key);
      if (entry !== undefined) entry.nodes = seqs.length === 1 ? seqs[0] : harden([...seqs]);
    },
    /** Node `seq` of `key`'s live generation is written (known already, or one more). */
    addNode: (key: string, seq: number) => {
      const entry = stored.get(key);
      if (entry === undefined || entry.nodes === undefined) return;
      const nodes = typeof entry.nodes === 'number' ? [entry.nodes] : entry.nodes;
      if (!nodes.includes(seq)) entry.nodes = harden([...nodes, seq]);
    },
    /** Whether `key` was read (or written anew) in this incarnation. */
    judged: (key: string) => stored.get(key)?.judged ?? false,
    /** The generations of `key` older than the one its new turns go to. */
    olderThanLive: (key: string) => {
      const current = stored.get(key)?.live;
      return current === undefined ? [] : generationsOf(key).filter(g => g < current);
    },
    /** Nothing is stored under `key` any more. */
    forget: (key: string) => {
      stored.delete(key);
      unlist(key);
    },
    isStored: (key: string) => stored.has(key),
    /** The stored keys of `correspondent`. */
    keysOf: (correspondent: string) => {
      const listed = byCorrespondent.get(correspondentPrefix(correspondent));
      return typeof listed === 'string' ? [listed] : [...(listed ?? [])];
    },
    keys: () => [...stored.keys()],
    count: () => stored.size,
  });
};
harden(makeStoreIndex);
export type StoreIndex = ReturnType<typeof makeStoreIndex>;

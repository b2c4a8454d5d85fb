// Where conversations are kept: fae's own directory, one directory per
// conversation generation, `conversations/<key>-g<n>/n<seq>`, one stored
// value per finished turn. A turn costs one storeValue (the first turn of
// a conversation one makeDirectory more). A summary starts the next
// generation: a new directory holding one value (the summary and the turns
// kept verbatim), then the old directory is removed, three calls however
// many turns were folded, and a crash in between leaves the old generation
// readable. Reading a conversation back is one list and concurrent
// lookups, done on its first message after a restart. Only this file knows
// how conversations are kept.
import { E } from '@endo/far';
import type { GuestPowers, Ref } from '../daemon/endo-types.js';
import type { Logger } from '../logging/log.js';
import { checkRecord, nodeName, seqOfNodeName, type ConversationRecord } from './records.js';
import { conversationKey, correspondentPrefix } from './threads.js';
import { makeUsableDirectory } from '../daemon/new-directory.js';

export const CONVERSATIONS_DIRECTORY = 'conversations';

const directoryName = (key: string, generation: number) => `${key}-g${generation}`;

const parseDirectoryName = (name: string) => {
  const match = /^([0-9a-f]{16}-[0-9a-f]{16})-g([1-9][0-9]{0,14})$/.exec(name);
  return match ? { key: match[1], generation: Number(match[2]) } : undefined;
};

export interface ConversationStore {
  /** The keys stored when fae started, creating the directory if needed. */
  readonly open: () => Promise<readonly string[]>;
  /**
   * The records of a stored conversation in sequence order, or undefined
   * (with a warning) when what is stored cannot be used. With `thread`
   * undefined (reading every thread of a correspondent), the thread is
   * taken from the records and must give back `key`.
   */
  readonly load: (
    key: string,
    correspondent: string,
    thread: string | undefined,
  ) => Promise<readonly ConversationRecord[] | undefined>;
  /** Stores a finished turn in the conversation's current generation. */
  readonly append: (key: string, record: ConversationRecord) => Promise<void>;
  /** Starts a new generation holding only `record` (a summary). */
  readonly rebase: (key: string, record: ConversationRecord) => Promise<void>;
  /** Removes every generation of a conversation. */
  readonly removeConversation: (key: string) => Promise<void>;
  /** Whether conversation `key` is stored. */
  readonly isStored: (key: string) => boolean;
  /** The keys of every stored conversation of `correspondent` (without a scan of the others). */
  readonly keysOf: (correspondent: string) => readonly string[];
  /** How many conversations are stored. */
  readonly count: () => number;
}

/** The length of a key's correspondent part (threads.ts). */
const PREFIX_LENGTH = correspondentPrefix('').length;

export const makeConversationStore = (
  powers: Ref<GuestPowers>,
  logger: Logger,
): ConversationStore => {
  /** The generations present in the store, per key. */
  const generations = new Map<string, number[]>();
  /** The generation new turns go to, once it is known to be sound. */
  const live = new Map<string, number>();
  /** The stored keys, by their correspondent part. */
  const byCorrespondent = new Map<string, Set<string>>();

  const setGenerations = (key: string, known: number[]) => {
    generations.set(key, known);
    const prefix = key.slice(0, PREFIX_LENGTH);
    byCorrespondent.set(prefix, (byCorrespondent.get(prefix) ?? new Set()).add(key));
  };
  const forgetKey = (key: string) => {
    generations.delete(key);
    live.delete(key);
    const prefix = key.slice(0, PREFIX_LENGTH);
    const keys = byCorrespondent.get(prefix);
    keys?.delete(key);
    if (keys?.size === 0) byCorrespondent.delete(prefix);
  };

  const path = (key: string, generation: number, ...rest: string[]) => [
    CONVERSATIONS_DIRECTORY,
    directoryName(key, generation),
    ...rest,
  ];

  const withNewDirectory = (dirPath: string[], use: () => Promise<unknown>) =>
    makeUsableDirectory(powers, logger, dirPath, use);

  const open = async () => {
    let names: readonly string[] | undefined;
    const there = await E(powers).has(CONVERSATIONS_DIRECTORY).catch(() => false);
    if (there) {
      names = await E(powers).list(CONVERSATIONS_DIRECTORY).catch(() => undefined);
      if (names === undefined) logger.warn('conversations-directory-replaced', { name: CONVERSATIONS_DIRECTORY });
    }
    if (names === undefined) {
      await withNewDirectory([CONVERSATIONS_DIRECTORY], () => E(powers).list(CONVERSATIONS_DIRECTORY));
      names = [];
    }
    for (const name of names) {
      const parsed = parseDirectoryName(name);
      if (parsed === undefined) continue;
      const known = generations.get(parsed.key) ?? [];
      known.push(parsed.generation);
      setGenerations(parsed.key, known.sort((a, b) => b - a));
    }
    return harden([...generations.keys()]);
  };

  const loadGeneration = async (
    key: string,
    generation: number,
    correspondent: string,
    thread: string | undefined,
  ) => {
    const names = await E(powers).list(...path(key, generation));
    const nodes = names.map(name => ({ name, seq: seqOfNodeName(name) }));
    const strangers = nodes.filter(node => node.seq === undefined).map(node => node.name);
    if (strangers.length > 0) throw Error(`unexpected names ${JSON.stringify(strangers)}`);
    nodes.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
    const values = await Promise.all(nodes.map(node => E(powers).lookup(path(key, generation, node.name))));
    const first = values[0] as { thread?: unknown } | undefined;
    const expected = thread ?? (typeof first?.thread === 'string' ? first.thread : '');
    if (conversationKey(correspondent, expected) !== key) {
      throw Error('it belongs to another conversation');
    }
    const records = values.map((value, i) => checkRecord(value, nodes[i].name, correspondent, expected));
    if (records.some((record, i) => i > 0 && record.kind === 'summary')) {
      throw Error('a summary is not at the head of its generation');
    }
    return harden(records);
  };

  const load = async (key: string, correspondent: string, thread: string | undefined) => {
    // Newest generation first; an older one is there only if a crash came
    // between starting a generation and removing its predecessor.
    for (const generation of generations.get(key) ?? []) {
      try {
        // Sequential on purpose: an older generation is read only if the newer fails.
        // eslint-disable-next-line no-await-in-loop
        const records = await loadGeneration(key, generation, correspondent, thread);
        if (records.length > 0) {
          live.set(key, generation);
          return records;
        }
      } catch (error) {
        logger.warn('conversation-unreadable', {
          conversation: key,
          generation,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    return undefined;
  };

  /** A new generation holding `record`, then the older ones go. */
  const startGeneration = async (key: string, record: ConversationRecord) => {
    const older = generations.get(key) ?? [];
    const generation = (older[0] ?? 0) + 1;
    await withNewDirectory(path(key, generation), () =>
      E(powers).storeValue(harden(record), path(key, generation, nodeName(record.seq))),
    );
    setGenerations(key, [generation]);
    live.set(key, generation);
    await Promise.all(older.map(g => E(powers).remove(...path(key, g)).catch(() => {})));
  };

  const append = async (key: string, record: ConversationRecord) => {
    const generation = live.get(key);
    if (generation === undefined) {
      await startGeneration(key, record);
      return;
    }
    await E(powers).storeValue(harden(record), path(key, generation, nodeName(record.seq)));
  };

  const removeConversation = async (key: string) => {
    const older = generations.get(key) ?? [];
    forgetKey(key);
    await Promise.all(older.map(g => E(powers).remove(...path(key, g)).catch(() => {})));
  };

  return harden({
    open,
    load,
    append,
    rebase: startGeneration,
    removeConversation,
    isStored: (key: string) => generations.has(key),
    keysOf: (correspondent: string) => [...(byCorrespondent.get(correspondentPrefix(correspondent)) ?? [])],
    count: () => generations.size,
  });
};
harden(makeConversationStore);

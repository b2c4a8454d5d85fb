// src/conversations/store/: where conversations are kept in fae's directory,
// the records read back and their checks, and the store kept in step.
// Imports: the layers below src/conversations, and the rest of it.
//
// Where conversations are kept: fae's own directory, one directory per
// conversation generation, `conversations/<key>-g<n>/n<seq>`, the
// finished turns a chunk per node (records.ts): the latest chunk is
// written again with each turn until it holds CHUNK_TURNS turns (or
// CHUNK_CHARACTERS of text), then the next turn starts one. A turn costs
// one storeValue (the first turn of a conversation one makeDirectory
// more). A summary starts the next
// generation: a new directory holding one value (the summary and the turns
// kept verbatim), then the old directory is removed, three calls however
// many turns were folded, and a crash in between leaves the old generation
// readable. Reading a conversation back is one list and a lookup per
// chunk, concurrent, done on its first message after a restart or once it
// fell out of memory (with many correspondents, most of their messages). Only this file knows
// how conversations are kept.
//
// A daemon that is slow or restarting refuses calls. A refused call is
// tried again (with backoff) and then reported as a rejection, never read
// as "nothing is stored": the conversations directory is made only when
// `has` answered false, a generation is started only once the stored ones
// were read, and removal goes oldest generation first, so what a refusal
// leaves behind is always a whole conversation.
import { E } from '@endo/far';
import { q } from '@endo/errors';
import { passStyleOf } from '@endo/marshal';
import type { Passable } from '@endo/marshal';
import type { GuestPowers, Ref } from '../../daemon/endo-types.js';
import type { Logger } from '../../logging/log.js';
import { DEFAULT_RETRY_MS, retrying } from '../../daemon/backoff.js';
import { plainDataAt } from '../../daemon/plain-data.js';
import { checkNode, nodeName, nodeValue, parseNode, seqOfNodeName, type ConversationRecord } from './records.js';
import { conversationKey } from '../threads.js';
import { makeStoreIndex, type StoreIndex } from './store-index.js';
import { makeUsableDirectory } from '../../daemon/new-directory.js';

export const CONVERSATIONS_DIRECTORY = 'conversations';

/** Tries of one daemon call before the store reports it refused (pauses of 100 and 200 ms). */
const ATTEMPTS = 3;

const directoryName = (key: string, generation: number) => `${key}-g${generation}`;

const parseDirectoryName = (name: string) => {
  const match = /^([0-9a-f]{16}-[0-9a-f]{16})-g([1-9][0-9]{0,14})$/.exec(name);
  return match ? { key: match[1], generation: Number(match[2]) } : undefined;
};

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A daemon call, tried again while refused; its last refusal says what could not be done. */
const patiently = async <T>(what: string, call: () => Promise<T>): Promise<T> => {
  try {
    return await retrying(ATTEMPTS, DEFAULT_RETRY_MS, call);
  } catch (error) {
    throw Error(`could not ${what}: ${messageOf(error)}`);
  }
};


export interface ConversationStore {
  /**
   * Lists the stored conversations (their keys), creating the directory
   * when the daemon says it is absent. Rejects when the daemon refused:
   * nothing may be written until it has answered.
   */
  readonly open: () => Promise<readonly string[]>;
  /**
   * The records of a stored conversation in sequence order, or undefined
   * (with a warning) when what is stored cannot be used. With `thread`
   * undefined (reading every thread of a correspondent), the thread is
   * taken from the records and must give back `key`. Rejects when the
   * daemon refused to read it: nothing is judged, try again later.
   */
  readonly load: (
    key: string,
    correspondent: string,
    thread: string | undefined,
  ) => Promise<readonly ConversationRecord[] | undefined>;
  /**
   * Stores a finished turn in the conversation's current generation: in
   * its latest chunk, rewritten with the turns `earlier` gives, or as the
   * start of a new one.
   */
  readonly append: (key: string, record: ConversationRecord, earlier?: EarlierRecords) => Promise<void>;
  /** Starts a new generation holding only `record` (a summary). */
  readonly rebase: (key: string, record: ConversationRecord) => Promise<void>;
  /** Whether generations older than the current one are left to remove. */
  readonly untidy: (key: string) => boolean;
  /** Removes the generations older than the current one (rejects when refused). */
  readonly tidy: (key: string) => Promise<void>;
  /**
   * Removes every generation of a conversation, oldest first: when the
   * daemon refuses, it rejects and what is left is the newest, whole.
   */
  readonly removeConversation: (key: string) => Promise<void>;
  /** Whether conversation `key` is stored (as far as the listing and fae's own writes tell). */
  readonly isStored: (key: string) => boolean;
  /** The keys of every stored conversation of `correspondent` (without a scan of the others). */
  readonly keysOf: (correspondent: string) => readonly string[];
  /** How many conversations are stored. */
  readonly count: () => number;
}

const path = (key: string, generation: number, ...rest: string[]) => [
  CONVERSATIONS_DIRECTORY,
  directoryName(key, generation),
  ...rest,
];

/**
 * Makes a directory at `dirPath` usable for `use` (makeUsableDirectory).
 * A directory's retries are worth one warning, not one per try to store
 * into it while the daemon refuses.
 */
const makeDirectoryMaker = (powers: Ref<GuestPowers>, logger: Logger) => {
  const warnedDirectories = new Set<string>();
  const directoryLogger: Logger = harden({
    ...logger,
    warn: (name: string, fields?: Readonly<Record<string, unknown>>) => {
      const where = String(fields?.name);
      if (warnedDirectories.has(where)) {
        logger.debug(name, () => fields);
        return;
      }
      warnedDirectories.add(where);
      logger.warn(name, fields);
    },
  });
  return (dirPath: string[], use: () => Promise<unknown>) => makeUsableDirectory(powers, directoryLogger, dirPath, use);
};

/**
 * The names in the conversations directory, making it when the daemon says
 * it is absent, or replacing it when its name holds plain data (resolved
 * before judging: a directory that cannot be listed now is never replaced).
 */
const listTopDirectory = async (
  powers: Ref<GuestPowers>,
  logger: Logger,
  withNewDirectory: ReturnType<typeof makeDirectoryMaker>,
): Promise<readonly string[]> => {
  const makeTopDirectory = async () => {
    try {
      await withNewDirectory([CONVERSATIONS_DIRECTORY], () => E(powers).list(CONVERSATIONS_DIRECTORY));
    } catch (error) {
      throw Error(`could not make the conversations directory: ${messageOf(error)}`);
    }
    return harden([] as string[]);
  };
  const there = await patiently('look for the conversations directory', () => E(powers).has(CONVERSATIONS_DIRECTORY));
  if (!there) return makeTopDirectory();
  try {
    return await patiently('list the stored conversations', () => E(powers).list(CONVERSATIONS_DIRECTORY));
  } catch (listFailure) {
    const looked = await plainDataAt(powers, CONVERSATIONS_DIRECTORY);
    if (looked === undefined) throw listFailure;
    logger.warn('conversations-directory-replaced', { name: CONVERSATIONS_DIRECTORY, held: passStyleOf(looked.value as Passable) });
    return makeTopDirectory();
  }
};

/**
 * The node names and values of one generation, as read; rejects when
 * refused. With `known`, the names fae wrote it with (store-index.ts), it
 * is read without a listing; when that read fails (its nodes changed
 * behind fae's back), it is read with one.
 */
const readGeneration = async (
  powers: Ref<GuestPowers>,
  key: string,
  generation: number,
  known?: readonly number[],
): Promise<GenerationRead> => {
  if (known !== undefined) {
    try {
      return await readNodes(powers, key, generation, known.map(nodeName));
    } catch {
      // Listed below.
    }
  }
  const names = await patiently('list a stored conversation', () => E(powers).list(...path(key, generation)));
  return readNodes(powers, key, generation, names);
};

interface GenerationRead {
  /** Names that are no node of fae's. */
  readonly strangers: readonly string[];
  /** Fae's nodes, in sequence order. */
  readonly usable: readonly { readonly name: string; readonly seq: number | undefined }[];
  readonly values: readonly unknown[];
}

/** The values of nodes `names` of one generation; rejects when refused. */
const readNodes = async (
  powers: Ref<GuestPowers>,
  key: string,
  generation: number,
  names: readonly string[],
): Promise<GenerationRead> => {
  const nodes = names.map(name => ({ name, seq: seqOfNodeName(name) }));
  const usable = nodes.filter(node => node.seq !== undefined).sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
  const values = await Promise.all(
    usable.map(node =>
      patiently('read a stored conversation', () => E(powers).lookup(path(key, generation, node.name))),
    ),
  );
  return { strangers: nodes.filter(node => node.seq === undefined).map(node => node.name), usable, values };
};

/** The records of a generation read back, and its latest chunk's first sequence number; throws why they cannot be used. */
const checkGeneration = (
  key: string,
  { strangers, usable, values }: GenerationRead,
  correspondent: string,
  thread: string | undefined,
) => {
  if (strangers.length > 0) throw Error(`unexpected names ${q(strangers)}`);
  const nodes = values.map((value, i) => parseNode(value, usable[i].name));
  const first = nodes[0] as { thread?: unknown } | undefined;
  const expected = thread ?? (typeof first?.thread === 'string' ? first.thread : '');
  if (conversationKey(correspondent, expected) !== key) {
    throw Error('it belongs to another conversation');
  }
  const records = nodes.flatMap((node, i) => checkNode(node, usable[i].name, correspondent, expected));
  if (records.some((record, i) => i > 0 && record.kind === 'summary')) {
    throw Error('a summary is not at the head of its generation');
  }
  if (records.some((record, i) => i > 0 && record.seq <= records[i - 1].seq)) {
    throw Error('two nodes hold the same turn');
  }
  // The latest node, when it holds turns, is the chunk the next turn may join.
  const last = usable.at(-1);
  const chunk = last !== undefined && records.at(-1)?.kind === 'turn' ? last.seq : undefined;
  // Frozen, as the records are (parseNode): hardening would walk them all.
  return Object.freeze({ records: Object.freeze(records), chunk });
};

/**
 * Removes one generation's directory. A retry first asks whether it is
 * still there: a refusal may have come after the removal was done.
 */
const removeGenerationDirectory = async (powers: Ref<GuestPowers>, key: string, generation: number) => {
  const name = directoryName(key, generation);
  let retry = false;
  await patiently('remove a stored conversation', async () => {
    const there = !retry || (await E(powers).has(CONVERSATIONS_DIRECTORY, name));
    retry = true;
    if (there) await E(powers).remove(CONVERSATIONS_DIRECTORY, name);
  });
};

/** The records of a conversation from sequence number `from` on, before the one being stored (store-sync.ts has them). */
export type EarlierRecords = (from: number) => readonly ConversationRecord[];

/** Turns a chunk holds at most. */
export const CHUNK_TURNS = 8;
/** Characters of message text a chunk holds at most, so that rewriting it stays cheap. */
export const CHUNK_CHARACTERS = 16_000;

const charactersOf = (records: readonly ConversationRecord[]) =>
  records.reduce(
    (sum, record) => sum + (record.kind === 'turn' ? record.messages.reduce((n, message) => n + message.content.length, 0) : 0),
    0,
  );

/**
 * What the node of `record` holds: the chunk that starts at `start` (the
 * conversation's latest) with `record` at its end, when the turns before
 * it in the chunk are all at hand and it stays within bounds; else
 * `record` alone, starting a chunk. A chunk is never written without a
 * turn it held: that would lose the turn.
 */
const chunkWith = (start: number | undefined, record: ConversationRecord, earlier: EarlierRecords) => {
  const alone = [record];
  if (start === undefined || record.kind !== 'turn' || record.seq <= start || record.seq - start >= CHUNK_TURNS) return alone;
  const before = earlier(start).filter(each => each.seq >= start && each.seq < record.seq);
  const whole = before.length === record.seq - start && before.every((each, i) => each.kind === 'turn' && each.seq === start + i);
  if (!whole) return alone;
  const records = before.concat(record);
  return charactersOf(records) <= CHUNK_CHARACTERS ? records : alone;
};

/**
 * The records of conversation `key`, from its newest usable generation
 * (undefined when none is): an empty one, left by a crash, is let go.
 */
const readLatest = async (
  { powers, logger, index }: { powers: Ref<GuestPowers>; logger: Logger; index: StoreIndex },
  key: string,
  correspondent: string,
  thread: string | undefined,
) => {
  // Newest generation first; an older one is there only if a crash came
  // between starting a generation and removing its predecessor. A
  // refusal ends the search: an older generation must not stand in for
  // a newer one that could not be read.
  for (const generation of index.generationsOf(key)) {
    const known = index.liveOf(key) === generation ? index.nodesOf(key) : undefined;
    // Sequential on purpose: an older generation is read only if the newer is unusable.
    // eslint-disable-next-line no-await-in-loop
    const read = await readGeneration(powers, key, generation, known);
    if (read.usable.length === 0 && read.strangers.length === 0) {
      // An empty generation: a crash came between making its directory and storing its first
      // turn. Nothing was stored in it, so it stands for nothing (the next turn makes it anew).
      index.removeGeneration(key, generation);
      continue;
    }
    try {
      const { records, chunk } = checkGeneration(key, read, correspondent, thread);
      if (records.length > 0) {
        index.judge(key, generation);
        index.setChunk(key, chunk);
        index.setNodes(key, read.usable.map(node => node.seq ?? 0));
        return records;
      }
    } catch (error) {
      logger.warn('conversation-unreadable', { conversation: key, generation, error: messageOf(error) });
    }
  }
  index.judge(key);
  return undefined;
};

export const makeConversationStore = (
  powers: Ref<GuestPowers>,
  logger: Logger,
): ConversationStore => {
  let opened = false;
  const index = makeStoreIndex();
  const withNewDirectory = makeDirectoryMaker(powers, logger);

  const assertOpen = () => {
    if (!opened) throw Error('the conversation store has not been listed yet');
  };

  const open = async () => {
    opened = false;
    index.clear();
    for (const name of await listTopDirectory(powers, logger, withNewDirectory)) {
      const parsed = parseDirectoryName(name);
      if (parsed !== undefined) index.addGeneration(parsed.key, parsed.generation);
    }
    opened = true;
    return harden(index.keys());
  };

  const load = async (key: string, correspondent: string, thread: string | undefined) => {
    assertOpen();
    return readLatest({ powers, logger, index }, key, correspondent, thread);
  };

  /** A new generation holding `record`; the older ones go with the next tidy. */
  const startGeneration = async (key: string, record: ConversationRecord) => {
    assertOpen();
    const older = index.generationsOf(key);
    if (older.length > 0 && !index.judged(key)) {
      // Never reached through conversation-memory.ts, which reads first; kept so that no caller can.
      throw Error(`the stored conversation ${q(key)} has not been read; it is not replaced`);
    }
    const generation = (older[0] ?? 0) + 1;
    try {
      await withNewDirectory(path(key, generation), () =>
        E(powers).storeValue(nodeValue([record]), path(key, generation, nodeName(record.seq))),
      );
    } catch (error) {
      throw Error(`could not start a new generation of a conversation: ${messageOf(error)}`);
    }
    index.addGeneration(key, generation);
    index.judge(key, generation);
    index.setChunk(key, record.kind === 'turn' ? record.seq : undefined);
    index.setNodes(key, [record.seq]);
  };

  const append = async (key: string, record: ConversationRecord, earlier: EarlierRecords = () => []) => {
    assertOpen();
    const generation = index.liveOf(key);
    if (generation === undefined) {
      await startGeneration(key, record);
      return;
    }
    const records = chunkWith(index.chunkOf(key), record, earlier);
    const first = records[0].seq;
    await patiently('store a turn', () =>
      E(powers).storeValue(nodeValue(records), path(key, generation, nodeName(first))),
    );
    index.setChunk(key, first);
    index.addNode(key, first);
  };

  const removeGeneration = async (key: string, generation: number) => {
    await removeGenerationDirectory(powers, key, generation);
    index.removeGeneration(key, generation);
  };

  const tidy = async (key: string) => {
    assertOpen();
    // Each on its own: the live generation stays whatever goes.
    const refusals = (await Promise.allSettled(index.olderThanLive(key).map(g => removeGeneration(key, g)))).filter(
      outcome => outcome.status === 'rejected',
    );
    if (refusals.length > 0) throw refusals[0].reason;
  };

  const removeConversation = async (key: string) => {
    assertOpen();
    // Oldest first: a refusal half way leaves the newest generation, a
    // whole conversation, never an older one without the latest turns.
    for (const generation of [...index.generationsOf(key)].sort((a, b) => a - b)) {
      // eslint-disable-next-line no-await-in-loop
      await removeGeneration(key, generation);
    }
    index.forget(key);
  };

  return harden({
    open,
    load,
    append,
    rebase: startGeneration,
    untidy: (key: string) => index.olderThanLive(key).length > 0,
    tidy,
    removeConversation,
    isStored: index.isStored,
    keysOf: index.keysOf,
    count: index.count,
  });
};
harden(makeConversationStore);

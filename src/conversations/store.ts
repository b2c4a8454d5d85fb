// Where conversations are kept: fae's own directory, under
// `conversations/<key>/n<seq>`, one stored value per finished turn or
// summary. A turn costs one storeValue (plus one makeDirectory the first
// time a conversation is written); reading a conversation back is one
// list and concurrent lookups, done on its first message after a restart.
// Only this file knows how conversations are kept.
import { E } from '@endo/far';
import type { GuestPowers, Ref } from '../daemon/endo-types.js';
import type { Logger } from '../logging/log.js';
import { checkRecord, nodeName, seqOfNodeName, type ConversationRecord } from './records.js';
import { conversationKey, isConversationKey } from './threads.js';

export const CONVERSATIONS_DIRECTORY = 'conversations';

export interface ConversationStore {
  /** The keys stored when fae started, creating the directory if needed. */
  readonly open: () => Promise<readonly string[]>;
  /**
   * The records of a stored conversation in sequence order, or undefined
   * (with a warning) when what is stored cannot be used.
   */
  readonly load: (
    key: string,
    correspondent: string,
    thread: string | undefined,
  ) => Promise<readonly ConversationRecord[] | undefined>;
  /** Stores one record; `create` first makes the conversation's directory. */
  readonly append: (key: string, record: ConversationRecord, create: boolean) => Promise<void>;
  /** Removes nodes that a summary has replaced. */
  readonly removeNodes: (key: string, seqs: readonly number[]) => Promise<void>;
  /** Removes a whole conversation. */
  readonly removeConversation: (key: string) => Promise<void>;
}

export const makeConversationStore = (
  powers: Ref<GuestPowers>,
  logger: Logger,
): ConversationStore => {
  const open = async () => {
    try {
      const names = await E(powers).list(CONVERSATIONS_DIRECTORY);
      return harden(names.filter(isConversationKey));
    } catch {
      // Missing, or a name that is no directory: (re)create it. has()
      // tells the two apart only for the warning.
      const there = await E(powers).has(CONVERSATIONS_DIRECTORY).catch(() => false);
      if (there) logger.warn('conversations-directory-replaced', { name: CONVERSATIONS_DIRECTORY });
      await E(powers).makeDirectory(CONVERSATIONS_DIRECTORY);
      return harden([] as string[]);
    }
  };

  /**
   * With `thread` undefined (reading every thread of a correspondent), the
   * thread is taken from the first record and must give back `key`.
   */
  const load = async (key: string, correspondent: string, thread: string | undefined) => {
    try {
      const names = await E(powers).list(CONVERSATIONS_DIRECTORY, key);
      const nodes = names
        .map(name => ({ name, seq: seqOfNodeName(name) }))
        .filter((node): node is { name: string; seq: number } => node.seq !== undefined)
        .sort((a, b) => a.seq - b.seq);
      if (nodes.length !== names.length) {
        throw Error(`unexpected names ${JSON.stringify(names.filter(n => seqOfNodeName(n) === undefined))}`);
      }
      const values = await Promise.all(
        nodes.map(node => E(powers).lookup([CONVERSATIONS_DIRECTORY, key, node.name])),
      );
      const first = values[0] as { thread?: unknown } | undefined;
      const expected = thread ?? (typeof first?.thread === 'string' ? first.thread : '');
      if (conversationKey(correspondent, expected) !== key) {
        throw Error('it belongs to another conversation');
      }
      return harden(values.map((value, i) => checkRecord(value, nodes[i].name, correspondent, expected)));
    } catch (error) {
      logger.warn('conversation-unreadable', {
        conversation: key,
        error: error instanceof Error ? error.message : String(error),
      });
      return undefined;
    }
  };

  const append = async (key: string, record: ConversationRecord, create: boolean) => {
    if (create) await E(powers).makeDirectory([CONVERSATIONS_DIRECTORY, key]);
    await E(powers).storeValue(harden(record), [CONVERSATIONS_DIRECTORY, key, nodeName(record.seq)]);
  };

  const removeNodes = async (key: string, seqs: readonly number[]) => {
    await Promise.all(
      seqs.map(seq => E(powers).remove(CONVERSATIONS_DIRECTORY, key, nodeName(seq)).catch(() => {})),
    );
  };

  const removeConversation = async (key: string) => {
    await E(powers).remove(CONVERSATIONS_DIRECTORY, key).catch(() => {});
  };

  return harden({ open, load, append, removeNodes, removeConversation });
};
harden(makeConversationStore);

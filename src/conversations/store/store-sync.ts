// Keeps the store in step with the conversations fae holds in memory, also
// while the daemon refuses it. A conversation's finished turns (and a new
// summary) are written in order, one conversation's writes never
// interleaving; a refusal leaves them in memory, to be written on the
// conversation's next turn or by the background retry (store-health.ts).
// Nothing is written before the store is listed, and nothing of a
// conversation whose stored turns could not be read: its stored turns are
// read first, then the turns answered meanwhile go after them.
import type { ChatMessage } from '../../../providers/types.js';
import type { Logger } from '../../logging/log.js';
import type { Redact } from '../../logging/redact.js';
import { RECORD_VERSION, type ConversationRecord } from './records.js';
import type { ConversationStore } from './store.js';
import { makeStoreHealth } from './store-health.js';
import { makeKeyedQueue } from '../keyed-queue.js';

export interface SyncedTurn {
  readonly seq: number;
  readonly messageId: string;
  readonly messages: readonly ChatMessage[];
  /** Ids of fae's own messages stored with this turn (records.ts). */
  readonly sent: readonly string[];
}

/** What the sync reads and changes of a conversation. */
export interface SyncedConversation {
  readonly key: string;
  readonly correspondent: string;
  readonly thread: string;
  summary: string | undefined;
  turns: SyncedTurn[];
  earlier: readonly string[];
  nextSeq: number;
  /**
   * Whether what the store holds of it is known: 'unknown' while the store
   * could not be listed or its stored turns could not be read. Until then
   * nothing of it is written (it would replace what is stored).
   */
  history: 'known' | 'unknown';
  /** How many of its latest turns are not stored yet. */
  unstored: number;
  /** Its summary is not stored yet: the next write starts a generation. */
  summaryUnstored: boolean;
  /** Removed from the store by forget: nothing of it is written again. */
  forgotten: boolean;
}

/** The fields a conversation starts with, stored history known (nothing to read). */
export const SYNCED_FROM_START = harden({
  history: 'known' as const,
  unstored: 0,
  summaryUnstored: false,
  forgotten: false,
});

export interface StoreSyncOptions<C extends SyncedConversation> {
  readonly logger: Logger;
  readonly redact: Redact;
  /** The conversations held in memory that the store may be behind (the others are stored). */
  readonly held: () => Iterable<C>;
  /** What is stored under `conversation`'s key; rejects when the daemon refused. */
  readonly readBack: (conversation: C) => Promise<SyncedConversation | undefined>;
  /** `conversation` changed in place (its turns or summary). */
  readonly onChanged: (conversation: C) => void;
  /** A catch-up or change of `conversation` is over, whether the store took it or not. */
  readonly onSettled?: (conversation: C) => void;
}

/**
 * The record of `turn`, for the store's nodes, which only stringify it:
 * frozen, not hardened. The messages of a turn read back are frozen but
 * not hardened (parseNode), and hardening walked them all at every write
 * of the chunk that holds them, twice a turn.
 */
const turnRecord = (conversation: SyncedConversation, turn: SyncedTurn): ConversationRecord =>
  Object.freeze({
    v: RECORD_VERSION,
    kind: 'turn',
    correspondent: conversation.correspondent,
    thread: conversation.thread,
    seq: turn.seq,
    messageId: turn.messageId,
    messages: turn.messages,
    ...(turn.sent.length > 0 ? { sent: turn.sent } : {}),
  });

const summaryRecord = (conversation: SyncedConversation, seq: number): ConversationRecord =>
  harden({
    v: RECORD_VERSION,
    kind: 'summary',
    correspondent: conversation.correspondent,
    thread: conversation.thread,
    seq,
    text: conversation.summary ?? '',
    turns: [...conversation.turns],
    ...(conversation.earlier.length > 0 ? { earlier: conversation.earlier } : {}),
  });

/** The records of `conversation`'s turns from sequence number `from` on, for the store's chunks. */
const recordsFrom = (conversation: SyncedConversation) => (from: number) =>
  conversation.turns.filter(turn => turn.seq >= from).map(turn => turnRecord(conversation, turn));

/** Whether the store lacks a turn (or the summary) of `conversation`. */
export const behindInTurns = (conversation: SyncedConversation) =>
  conversation.history === 'unknown' || conversation.unstored > 0 || conversation.summaryUnstored;
harden(behindInTurns);

/**
 * What is stored of `conversation` goes before the turns it had without
 * it; whether that changed it.
 */
const absorbStored = (conversation: SyncedConversation, stored: SyncedConversation | undefined) => {
  conversation.history = 'known';
  if (stored === undefined) return false;
  // A message replayed meanwhile that was stored before is kept once.
  const storedIds = new Set(stored.turns.map(turn => turn.messageId));
  let seq = stored.nextSeq;
  const meanwhile = conversation.turns
    .filter(turn => !storedIds.has(turn.messageId))
    .map(turn => ({ ...turn, seq: seq++ }));
  conversation.summary = stored.summary;
  conversation.earlier = stored.earlier;
  conversation.turns = [...stored.turns, ...meanwhile];
  conversation.nextSeq = seq;
  conversation.unstored = meanwhile.length;
  return true;
};

/**
 * Writes what the store lacks of `conversation` (its summary as a new
 * generation, then its unstored turns, oldest first), then removes the
 * generations it replaced; rejects at a refusal, what is written counted.
 */
const writeBehind = async (store: ConversationStore, conversation: SyncedConversation) => {
  const { key } = conversation;
  if (conversation.history === 'unknown' || conversation.forgotten) return;
  if (conversation.summaryUnstored) {
    const included = conversation.turns.length;
    // Its own sequence number, after every turn it keeps.
    const seq = conversation.nextSeq;
    conversation.nextSeq += 1;
    await store.rebase(key, summaryRecord(conversation, seq));
    conversation.summaryUnstored = false;
    // Turns finished while it was written are not in it.
    conversation.unstored = conversation.turns.length - included;
  }
  while (conversation.unstored > 0) {
    const turn = conversation.turns[conversation.turns.length - conversation.unstored];
    // Sequential on purpose: turns are stored in order.
    // eslint-disable-next-line no-await-in-loop
    await store.append(key, turnRecord(conversation, turn), recordsFrom(conversation));
    conversation.unstored -= 1;
  }
  if (store.untidy(key)) await store.tidy(key);
};

/**
 * Stores the record of `conversation`'s latest turn again, in place, with
 * `ids()` added to what it sent, when that turn's own record is the
 * latest stored (not a summary's); whether it did. Rejects when refused.
 */
const relinkLatest = async (store: ConversationStore, conversation: SyncedConversation, ids: () => readonly string[]) => {
  const last = conversation.turns.at(-1);
  if (last === undefined || last.seq !== conversation.nextSeq - 1) return false;
  // Not one any turn holds already: a link is stored once.
  const fresh = ids().filter(id => !conversation.turns.some(turn => turn.sent.includes(id)));
  if (fresh.length === 0) return false;
  const relinked = harden({ ...last, sent: [...last.sent, ...fresh] });
  await store.append(conversation.key, turnRecord(conversation, relinked), recordsFrom(conversation));
  // Turns finished meanwhile went after it.
  const at = conversation.turns.lastIndexOf(last);
  if (at >= 0) conversation.turns[at] = relinked;
  return true;
};

/** The store's listing, made once it succeeds; one at a time, a refusal told to `refused`. */
const makeListing = (store: ConversationStore, refused: (error: unknown) => void) => {
  let listed = false;
  let listing: Promise<boolean> | undefined;
  return {
    listed: () => listed,
    /** Lists the store if it was not yet; false while the daemon refuses. */
    ensureListed: () => {
      if (listed) return Promise.resolve(true);
      listing ??= store
        .open()
        .then(
          () => {
            listed = true;
            return true;
          },
          error => {
            refused(error);
            return false;
          },
        )
        .finally(() => {
          listing = undefined;
        });
      return listing;
    },
  };
};

export const makeStoreSync = <C extends SyncedConversation>(
  store: ConversationStore,
  { logger, redact, held, readBack, onChanged, onSettled = () => {} }: StoreSyncOptions<C>,
) => {
  const listing = makeListing(store, error => health.refused(error));
  const { ensureListed } = listing;

  /** Whether the store lacks something of `conversation`, or holds generations it replaced. */
  const behind = (conversation: C) => behindInTurns(conversation) || store.untidy(conversation.key);

  const checkRecovered = () => {
    if (listing.listed() && ![...held()].some(behind)) health.recovered();
  };

  /** One store operation at a time per conversation: writes never interleave. */
  const { run: exclusive } = makeKeyedQueue();

  /** Writes what the store lacks of `conversation`; a refusal is noted. Runs exclusively. */
  const flush = (conversation: C) => writeBehind(store, conversation).catch(error => health.refused(error));

  /**
   * Brings the store up to `conversation`: reads what is stored of it if
   * that could not be done before, then writes what it lacks. A refusal
   * leaves everything as it is, for the next turn or the background retry.
   */
  const catchUp = (conversation: C) =>
    exclusive(conversation.key, async () => {
      if (conversation.forgotten || !(await ensureListed())) return;
      if (conversation.history === 'unknown') {
        let stored;
        try {
          stored = await readBack(conversation);
        } catch (error) {
          health.refused(error);
          return;
        }
        if (absorbStored(conversation, stored)) onChanged(conversation);
      }
      await flush(conversation);
    }).finally(() => {
      onSettled(conversation);
      checkRecovered();
    });

  const health = makeStoreHealth({
    logger,
    redact,
    // The background retry: the listing, then every conversation behind.
    retry: async () => {
      if (await ensureListed()) await Promise.all([...held()].filter(behind).map(catchUp));
      checkRecovered();
    },
  });

  return harden({
    /** Whether the store has been listed (nothing is written before). */
    listed: listing.listed,
    behind,
    ensureListed,
    catchUp,
    /**
     * Runs `change` on `conversation` while none of its writes is under
     * way (a compaction), then stores what it changed.
     */
    amend: (conversation: C, change: () => Promise<void>) =>
      exclusive(conversation.key, async () => {
        await change();
        await flush(conversation);
      }).finally(() => {
        onSettled(conversation);
        checkRecovered();
      }),
    /**
     * Adds `ids()` (fae's messages learnt since, asked for once no write
     * of `conversation` is under way) to the record of its latest turn
     * (relinkLatest), when the store holds all of it; else its next record
     * carries them. Whether they were stored; a refusal is noted.
     */
    addSent: (conversation: C, ids: () => readonly string[]) =>
      exclusive(conversation.key, async () => {
        if (!listing.listed() || conversation.forgotten || behind(conversation)) return false;
        try {
          return await relinkLatest(store, conversation, ids);
        } catch (error) {
          health.refused(error);
          return false;
        }
      }),
    /** Removes what is stored under `key`, between its writes; rejects when refused. */
    remove: (key: string) => exclusive(key, () => store.removeConversation(key)),
    /** A refusal met elsewhere (reading a conversation on a reply). */
    refused: (error: unknown) => health.refused(error),
    checkRecovered,
    status: () =>
      harden({
        ...health.status(),
        /** Finished turns kept in memory until the store takes them. */
        unstoredTurns: [...held()].reduce((n, c) => n + (c.summaryUnstored ? c.turns.length : c.unstored), 0),
      }),
    /** Ends the background retry (fae is cancelled). */
    stop: () => health.stop(),
  });
};
harden(makeStoreSync);

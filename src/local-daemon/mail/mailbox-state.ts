// One agent's inbox (spec §5): numbered records, dismissal, subscribers.
// Numbers start at 0n and are never reused; dismissal leaves gaps.
import { defineExoClass } from '@endo/exo';
import { makePromiseKit } from '@endo/promise-kit';
import { DismisserInterface } from '../interfaces.js';

/** What a sender hands to a recipient's inbox. */
export interface WireMessage {
  readonly type: string;
  readonly from: string;
  readonly to: string;
  readonly messageId: string;
  readonly replyTo?: string;
  readonly [field: string]: unknown;
}

/** A record as listMessages/followMessages give it (spec §5.1). */
export interface MessageRecord extends WireMessage {
  readonly number: bigint;
  readonly date: string;
  readonly dismissed: Promise<void>;
  readonly dismisser: object;
}

export interface Mailbox {
  /** Numbers the message, stamps the date, stores it and tells followers. */
  deliver(wire: WireMessage): MessageRecord;
  get(number: bigint): MessageRecord | undefined;
  /** Undismissed records, ascending. */
  list(): MessageRecord[];
  /** A live iterator over the inbox map: it sees later arrivals too. */
  live(): IterableIterator<MessageRecord>;
  /** Returns false if there was no such message. */
  dismiss(number: bigint): boolean;
  subscribe(follower: (record: MessageRecord) => void): () => void;
  /** Calls `visit` with each id the undismissed messages keep alive (spec §2.6). */
  forEachId(visit: (id: string) => void): void;
  /** Rebuilds records as a restarted daemon reads them from disk (§5.7). */
  restore(): void;
  /**
   * August edits: replaces a message under the same number with a new
   * date and `done`, and tells followers again.
   */
  revise(number: bigint, wire: WireMessage, done: boolean): MessageRecord;
  /** The number of the message with this id from this sender, if any. */
  findByMessageId(messageId: string, from: string): bigint | undefined;
  /** Every revision of a message since the daemon started (August). */
  history(number: bigint): readonly Revision[];
}

export interface Revision {
  readonly envelope: WireMessage;
  readonly done: boolean;
  readonly date: string;
}

/**
 * @param restoreReplyTo February rebuilds every record with a replyTo key
 *   after a restart; later generations keep it only when set
 * @param keepRevisions August's messageHistory: every revision is kept in
 *   memory until a restart, as upstream; earlier generations keep none
 */
export const makeMailbox = (onChange: () => void, restoreReplyTo = true, keepRevisions = false): Mailbox => {
  const messages = new Map<bigint, MessageRecord>();
  const resolvers = new Map<bigint, () => void>();
  const followers = new Set<(record: MessageRecord) => void>();
  // In memory only, as upstream: a restart forgets every revision.
  const revisions = new Map<bigint, Revision[]>();
  let nextNumber = 0n;

  const dismiss = (number: bigint) => {
    const resolve = resolvers.get(number);
    if (resolve === undefined) return false;
    messages.delete(number);
    resolvers.delete(number);
    resolve();
    onChange();
    return true;
  };

  // One class per inbox, one instance per message: what crosses is the
  // same Dismisser remotable as upstream's per-message exo, without
  // defining a class for every message (the simulator's own cost, which
  // would otherwise weigh on the agent's timings in this one process).
  const makeDismisser = defineExoClass('Dismisser', DismisserInterface, (number: bigint) => ({ number }), {
    async dismiss() {
      dismiss(this.state.number);
    },
  });

  const makeRecord = (wire: WireMessage, number: bigint, date: string, dismissed: Promise<void>) => {
    const dismisser = makeDismisser(number);
    return harden({ ...wire, number, date, dismissed, dismisser }) as MessageRecord;
  };

  const deliver = (wire: WireMessage) => {
    const number = nextNumber;
    nextNumber += 1n;
    const { promise, resolve } = makePromiseKit<void>();
    const record = makeRecord(wire, number, new Date().toISOString(), promise);
    messages.set(number, record);
    resolvers.set(number, () => resolve());
    if (keepRevisions) {
      revisions.set(number, [harden({ envelope: harden({ ...wire, done: true }), done: true, date: record.date })]);
    }
    for (const follower of [...followers]) follower(record);
    onChange();
    return record;
  };

  const revise = (number: bigint, wire: WireMessage, done: boolean) => {
    const existing = messages.get(number) as MessageRecord;
    const date = new Date().toISOString();
    const record = harden({
      ...wire,
      done,
      number,
      date,
      dismissed: existing.dismissed,
      dismisser: existing.dismisser,
    }) as MessageRecord;
    messages.set(number, record);
    if (keepRevisions) {
      revisions.set(number, [...(revisions.get(number) ?? []), harden({ envelope: harden({ ...wire, done }), done, date })]);
    }
    for (const follower of [...followers]) follower(record);
    onChange();
    return record;
  };

  // No list is built: the collection pass visits every message of every
  // mailbox after each call, and a list per pass weighed on the agent's
  // timings in the same process once the mail grew.
  const forEachId = (visit: (id: string) => void) => {
    messages.forEach(record => {
      visit(record.from);
      visit(record.to);
      if (Array.isArray(record.ids)) (record.ids as string[]).forEach(id => visit(id));
      if (typeof record.valueId === 'string') visit(record.valueId);
    });
  };

  const restore = () => {
    revisions.clear();
    for (const [number, record] of messages) {
      // Restored records always carry a replyTo key (spec §5.7).
      const { number: _n, date, dismissed, dismisser: _d, ...wire } = record;
      const restored = makeRecord(restoreReplyTo ? { replyTo: undefined, ...wire } : wire, number, date, dismissed);
      messages.set(number, restored);
    }
  };

  return harden({
    deliver,
    get: (number: bigint) => messages.get(number),
    list: () => [...messages.values()],
    live: () => messages.values(),
    dismiss,
    subscribe: (follower: (record: MessageRecord) => void) => {
      followers.add(follower);
      return () => {
        followers.delete(follower);
      };
    },
    forEachId,
    restore,
    revise,
    findByMessageId: (messageId: string, from: string) =>
      [...messages.values()].find(record => record.messageId === messageId && record.from === from)?.number,
    history: (number: bigint) => harden([...(revisions.get(number) ?? [])]),
  });
};
harden(makeMailbox);

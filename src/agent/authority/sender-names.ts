// The names fae's directory holds for a sender, read once and then kept
// while fae's top-level names for that sender stay as they are. The id of
// a sender never changes, but the names can (the host may rename or remove
// them), so the cache lives only while fae watches its own names
// (src/daemon/own-names.ts):
//   - a name added, or bound anew, drops what is kept for the sender it
//     now names; a name removed drops what is kept for the sender it named;
//   - a change fae cannot place (a special name, a name it never saw
//     bound) and a lost watch drop everything; until the watch is back,
//     every message asks the daemon;
//   - an answer that was on its way while such a change came is used but
//     not kept.
// What is left is the moment between a rename and fae hearing of it, the
// same for any reader of the daemon.
import { formulaIdOf } from '../../daemon/dialect.js';
import type { OwnNamesWatch } from '../../daemon/own-names.js';
import { makeRecentMap } from '../../recent-map.js';
import { correspondentKeyOf, unnamedLabel } from '../../usage/usage-ledger.js';

/** Senders remembered at most; those seen least recently go first. */
const LIMIT = 1024;

const NO_NAMES: readonly string[] = harden([]);

export type SenderNames = (from: string) => Promise<readonly string[]>;

/** What makeSenderNames gives: the lookup, and how many reads it is tracking (for tests of its bound). */
export type SenderNamesLookup = SenderNames & { readonly readsUnderWay: () => number };

/**
 * Where a sender's names are kept: the key its usage is kept under (a
 * hash of its id, remembered for the latest senders), rather than the id
 * itself, some 200 characters kept for each of LIMIT senders.
 */
const keyOf = correspondentKeyOf;

export const makeSenderNames = (read: SenderNames, ownNames: OwnNamesWatch): SenderNamesLookup => {
  /** Kept names, by keyOf the sender's raw id. */
  const known = makeRecentMap<string, readonly string[]>(LIMIT);
  /** What each of fae's top-level names is bound to, as the watch told. */
  const boundTo = new Map<string, string>();
  /**
   * The reads under way, each marked stale by a change that could touch
   * its answer. Only they need to hear of a change: the usage record is
   * bound anew after every turn, and a table of every change ever seen
   * would grow with the mail.
   */
  const underWay = new Set<{ readonly key: string; stale: boolean }>();

  const forgetAll = () => {
    known.clear();
    for (const reading of underWay) reading.stale = true;
  };
  const forget = (id: string) => {
    const key = keyOf(id);
    known.delete(key);
    for (const reading of underWay) if (reading.key === key) reading.stale = true;
  };

  ownNames.listen({
    onChange: change => {
      if (change === undefined) {
        forgetAll();
      } else if ('add' in change) {
        const before = boundTo.get(change.add);
        boundTo.set(change.add, change.id);
        if (before !== undefined) forget(before);
        forget(change.id);
      } else {
        const before = boundTo.get(change.remove);
        boundTo.delete(change.remove);
        if (before === undefined) forgetAll();
        else forget(before);
      }
    },
    onLost: () => {
      boundTo.clear();
      forgetAll();
    },
  });

  const lookup = async (from: string) => {
    const key = keyOf(formulaIdOf(from) ?? from);
    const kept = known.get(key);
    if (kept !== undefined) return kept;
    const reading = { key, stale: false };
    const watched = ownNames.isFollowing();
    underWay.add(reading);
    let names: readonly string[];
    try {
      const answer = await read(from);
      // Most senders have no name in fae's directory: they share one empty list.
      names = answer.length === 0 ? NO_NAMES : harden([...answer]);
    } finally {
      underWay.delete(reading);
    }
    if (watched && ownNames.isFollowing() && !reading.stale) {
      known.set(key, names);
    }
    return names;
  };
  return harden(Object.assign(lookup, { readsUnderWay: () => underWay.size }));
};
harden(makeSenderNames);

/** Words that name fae's host (or fae itself) to a reader: never a name for anyone else. */
const RESERVED = /^@?(host|self|agent|mail|nets|me)$/i;

/**
 * The names of a sender the host and the model may be told: not one the
 * model wrote (model-names.ts), and, but for the host itself, none that
 * reads as the host's or fae's own ("host", "HOST", "@self").
 */
export const trustedSenderNames =
  (
    read: SenderNames,
    { trusts, isHost }: { readonly trusts: (path: readonly string[]) => boolean; readonly isHost: (from: string) => Promise<boolean> },
  ): SenderNames =>
  async from => {
    const [names, host] = await Promise.all([read(from), isHost(from)]);
    return harden(names.filter(name => trusts([name]) && (host || !RESERVED.test(name))));
  };
harden(trustedSenderNames);

/** What a sender is called when fae has no name for it, or could not read its names. */
const UNNAMED_SENDER = 'an unnamed sender';
const UNKNOWN_SENDER = 'an unknown sender';

/**
 * How the model and the host are told who wrote: the sender's first pet
 * name, or what fae knows of them. Senders fae has no name for are told
 * apart by the label status() shows them under ("an unnamed sender
 * (unnamed-1a2b3c4d)"), the same for a sender every time.
 */
export const describeWith = (senderNames: SenderNames) => async (from: string, correspondent: string) => {
  try {
    const names = await senderNames(from);
    return names[0] ?? `${UNNAMED_SENDER} (${unnamedLabel(correspondentKeyOf(correspondent))})`;
  } catch {
    return UNKNOWN_SENDER;
  }
};
harden(describeWith);

/**
 * describeWith, but the host's own name for a correspondent comes first
 * (host-names.ts); an unnamed label given out is remembered, so the host
 * can name the correspondent by it.
 */
export const describeWithHostNames =
  (senderNames: SenderNames, hostNames: { nameOf(id: string): string | undefined; noteLabel(label: string, id: string): void }) =>
  async (from: string, correspondent: string) => {
    const named = hostNames.nameOf(correspondent);
    if (named !== undefined) return named;
    const described = await describeWith(senderNames)(from, correspondent);
    const label = senderWord(described);
    if (label !== described) hostNames.noteLabel(label, correspondent);
    return described;
  };
harden(describeWithHostNames);

/** The pet name in a description describeWith gave, if it is one (a pet name has no spaces). */
export const petNameIn = (description: string): string | undefined =>
  description.startsWith(UNNAMED_SENDER) || description === UNKNOWN_SENDER ? undefined : description;
harden(petNameIn);

/**
 * A sender described by describeWith, in one word the host can type ("always
 * for …"): its pet name, or the label of an unnamed sender.
 */
export const senderWord = (description: string): string =>
  /^an unnamed sender \((unnamed-[0-9a-f]{8})\)$/.exec(description)?.[1] ?? description;
harden(senderWord);

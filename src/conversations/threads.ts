// Which conversation a message belongs to.
//
// A conversation is one thread of one correspondent. The correspondent is
// whoever the agent's `correspondentOf(message)` says (the sender's
// formula id by default); threads come from the messages' `messageId` and
// `replyTo` fields:
//
// - A fresh message (no `replyTo`) continues the correspondent's main
//   thread, so plain `endo send fae …` mail keeps its memory as before.
// - A reply continues the thread of the message it answers: one the same
//   correspondent sent, or one fae sent in that thread. The daemon's
//   `reply` returns no id, so fae learns the ids of what it sent from its
//   own copies in its inbox (their `replyTo` names the message answered);
//   each id is stored with the thread's next turn, and the copy dismissed.
//   Which thread holds an id is read from the conversations themselves:
//   the ids of their turns, and of the latest turns folded into their
//   summary (conversation-state.ts), so it is the same before and after a
//   restart, and fae keeps no index that grows with its mail.
// - A reply to a message fae knows in no thread of that correspondent (say,
//   one fae sent on its own with `send`) opens a new thread rooted at it;
//   later replies in it continue it. A thread never sees another thread's
//   messages, and never another correspondent's.
//
// Conversations are stored under a key that is a valid pet name in every
// daemon dialect: two 64-bit hashes, of the correspondent and of the
// thread's root, so that all threads of one correspondent share a prefix.
// The stored records name the correspondent and thread in full, and a
// record naming others is refused (a hash collision cannot merge two
// conversations).

export const MAIN_THREAD = 'main';

// FNV-1a, 64 bits, in two 32-bit halves: the same hash as BigInt
// arithmetic gives (stored names depend on it), some twenty times faster,
// and it is taken several times for every message. The prime is
// 2^40 + 0x1b3, so h * prime = h * 0x1b3 + (h << 40), modulo 2^64.
const FNV_OFFSET_HIGH = 0xcbf29ce4;
const FNV_OFFSET_LOW = 0x84222325;
const FNV_PRIME_LOW = 0x1b3;
const TWO_TO_32 = 2 ** 32;

/** FNV-1a over UTF-16 code units: stable, synchronous, no dependency. */
const hash64 = (text: string): string => {
  let high = FNV_OFFSET_HIGH;
  let low = FNV_OFFSET_LOW;
  for (let i = 0; i < text.length; i += 1) {
    low = (low ^ text.charCodeAt(i)) >>> 0;
    // Each product stays below 2^53, so it is exact.
    const lowProduct = low * FNV_PRIME_LOW;
    const carry = Math.floor(lowProduct / TWO_TO_32);
    high = (high * FNV_PRIME_LOW + carry + Math.imul(low, 256)) >>> 0;
    low = lowProduct >>> 0;
  }
  return `${high.toString(16).padStart(8, '0')}${low.toString(16).padStart(8, '0')}`;
};

/**
 * Prefixes made lately, by correspondent: the same one is taken several
 * times for every message (its lane, its thread, its store), and hashing
 * a correspondent's id (some 260 characters) each time was a part of a
 * turn's start. A pure function's answers, so faes sharing a worker may
 * share them.
 */
const prefixes = new Map<string, string>();
const PREFIXES_KEPT = 256;

/** The prefix shared by every stored conversation of a correspondent. */
export const correspondentPrefix = (correspondent: string) => {
  let prefix = prefixes.get(correspondent);
  if (prefix === undefined) {
    prefix = `${hash64(correspondent)}-`;
    prefixes.set(correspondent, prefix);
    if (prefixes.size > PREFIXES_KEPT) prefixes.delete(prefixes.keys().next().value as string);
  }
  return prefix;
};
harden(correspondentPrefix);

/** A pet name, e.g. "3f2a…-9c01…" (33 characters of [0-9a-f-]). */
export const conversationKey = (correspondent: string, thread: string) =>
  `${correspondentPrefix(correspondent)}${hash64(thread)}`;
harden(conversationKey);

export const isConversationKey = (name: string) => /^[0-9a-f]{16}-[0-9a-f]{16}$/.test(name);
harden(isConversationKey);

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
//   own copies in its inbox (their `replyTo` names the message answered).
//   Those copies stay in fae's inbox, so after a restart the replay teaches
//   fae the same links again without storing them.
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

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK = (1n << 64n) - 1n;

/** FNV-1a over UTF-16 code units: stable, synchronous, no dependency. */
const hash64 = (text: string): string => {
  let h = FNV_OFFSET;
  for (let i = 0; i < text.length; i += 1) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * FNV_PRIME) & MASK;
  }
  return h.toString(16).padStart(16, '0');
};

/** The prefix shared by every stored conversation of a correspondent. */
export const correspondentPrefix = (correspondent: string) => `${hash64(correspondent)}-`;
harden(correspondentPrefix);

/** A pet name, e.g. "3f2a…-9c01…" (33 characters of [0-9a-f-]). */
export const conversationKey = (correspondent: string, thread: string) =>
  `${correspondentPrefix(correspondent)}${hash64(thread)}`;
harden(conversationKey);

export const isConversationKey = (name: string) => /^[0-9a-f]{16}-[0-9a-f]{16}$/.test(name);
harden(isConversationKey);

/** Bounded maps: the oldest links are forgotten first. */
const remember = <K, V>(map: Map<K, V>, key: K, value: V, limit: number) => {
  map.delete(key);
  map.set(key, value);
  if (map.size > limit) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
};

export interface ThreadIndex {
  /** A message (received or sent) is part of conversation `key`. */
  readonly noteMessage: (messageId: string | undefined, key: string) => void;
  /** fae's own copy of a message it sent: links it to what it answered. */
  readonly noteOwnMessage: (messageId: string | undefined, replyTo: string | undefined) => void;
  /** The conversation a message id belongs to, if known. */
  readonly conversationOf: (messageId: string) => string | undefined;
  /** Forgets every link to conversation `key`. */
  readonly dropConversation: (key: string) => void;
}

export const makeThreadIndex = (limit = 4096): ThreadIndex => {
  const keyOfId = new Map<string, string>();
  const parentOfOwn = new Map<string, string>();
  return harden({
    noteMessage: (messageId: string | undefined, key: string) => {
      if (typeof messageId === 'string' && messageId !== '') remember(keyOfId, messageId, key, limit);
    },
    noteOwnMessage: (messageId: string | undefined, replyTo: string | undefined) => {
      if (typeof messageId === 'string' && typeof replyTo === 'string' && replyTo !== '') {
        remember(parentOfOwn, messageId, replyTo, limit);
      }
    },
    conversationOf: (messageId: string) => {
      // Follow fae's own messages back to what they answered (a short chain).
      let id: string | undefined = messageId;
      for (let step = 0; id !== undefined && step < 8; step += 1) {
        const key = keyOfId.get(id);
        if (key !== undefined) return key;
        id = parentOfOwn.get(id);
      }
      return undefined;
    },
    dropConversation: (key: string) => {
      for (const [id, owner] of keyOfId) if (owner === key) keyOfId.delete(id);
    },
  });
};
harden(makeThreadIndex);

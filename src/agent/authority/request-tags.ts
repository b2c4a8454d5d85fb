// The tag that tells one approval request from another (four hex digits,
// in its title), made from what the request is: the message whose turn
// asks, the call, and how many times that turn asked for the same call
// before. The turn a restart replays asks for the same call under the same
// tag, so its request has the same title as the one sent before the
// restart, and fae takes that one up rather than sending a second
// (host-forms.ts, reopen).
import { makeRecentMap } from '../../recent-map.js';

/** Turns whose asking is counted, at most. */
const COUNTED = 256;

/** FNV-1a over the UTF-16 code units of `text`: 32 bits. */
const fnv1a = (text: string) => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
};

export const makeRequestTags = () => {
  const asked = makeRecentMap<string, number>(COUNTED);
  /** The tag of a request the turn of `messageKey` makes for `call` (the call's name and arguments, as text). */
  return (messageKey: string, call: string) => {
    const key = `${messageKey}\n${call}`;
    const before = asked.get(key) ?? 0;
    asked.set(key, before + 1);
    return (fnv1a(`${key}\n${before}`) & 0xffff).toString(16).padStart(4, '0');
  };
};
harden(makeRequestTags);

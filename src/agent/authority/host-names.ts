// The names the host gave fae for its correspondents (`/name unnamed-1a2b3c4d
// alice`): fae's directory may hold none for a guest the host introduced
// to fae (`endo mkguest alice … --introduce fae` names fae for alice, not
// alice for fae), and a name the model wrote there names no one. These
// come from the host alone, are kept by the correspondent's id, sealed from
// the tools, and come first wherever fae names a sender: approvals,
// notices, reports, the model's view, and the `@WHO` of approval rules.
import { E } from '@endo/far';
import { M, matches } from '@endo/patterns';
import { q } from '@endo/errors';
import type { GuestPowers, Ref } from '../../daemon/endo-types.js';
import type { Logger } from '../../logging/log.js';
import { makeOrderedWrites } from '../../daemon/ordered-writes.js';
import { makeRecentMap } from '../../recent-map.js';

/** The sealed name the names are kept under. */
export const HOST_NAMES_NAME = 'correspondent-names';
/** Names kept at most. */
export const HOST_NAMES_KEPT = 1024;
/** Unnamed labels remembered, so that the host can name whom fae called so. */
const LABELS_KEPT = 1024;

const StoredShape = M.splitRecord({ names: M.arrayOf(M.splitRecord({ id: M.string(), name: M.string() })) });

/** A name a person types and reads: a word of letters, digits, `-`, `_` or `.`, not one of fae's own words. */
const NAME = /^[\p{L}\p{N}][\p{L}\p{N}._-]{0,63}$/u;
const RESERVED = /^(host|self|agent|mail|nets|me|you|fae|everyone|all|unnamed-.*)$/i;

export const makeHostNames = ({ powers, logger }: { readonly powers: Ref<GuestPowers>; readonly logger: Logger }) => {
  /** Correspondent id → name, and back. */
  const names = new Map<string, string>();
  const labels = makeRecentMap<string, string>(LABELS_KEPT);
  const store = makeOrderedWrites(powers, HOST_NAMES_NAME);

  return harden({
    /** Reads the names (at start, before any turn). */
    start: async () => {
      try {
        if (!(await E(powers).has(HOST_NAMES_NAME))) return;
        const value = await E(powers).lookup(HOST_NAMES_NAME);
        if (!matches(value, StoredShape)) {
          logger.warn('correspondent-names-unreadable', { name: HOST_NAMES_NAME });
          return;
        }
        for (const { id, name } of (value as { names: readonly { id: string; name: string }[] }).names) names.set(id, name);
      } catch (error) {
        logger.warn('correspondent-names-unread', { error });
      }
    },
    /** The host's name for a correspondent, if it gave one. */
    nameOf: (id: string) => names.get(id),
    /** The correspondent the host named `name`, if any. */
    idOf: (name: string) => [...names].find(([, given]) => given.toLowerCase() === name.toLowerCase())?.[0],
    /** fae called `id` by the unnamed `label` (unnamed-1a2b3c4d): the host may name it by that. */
    noteLabel: (label: string, id: string) => labels.set(label, id),
    /**
     * Names whoever fae calls `who` (an unnamed label, or a name the host
     * gave before) `name` from now on; resolves to what to tell the host.
     */
    name: async (who: string, name: string) => {
      if (!NAME.test(name) || RESERVED.test(name)) {
        return `${q(name)} cannot be a name for a correspondent: use a word of letters and digits (a "-", "_" or "." inside), not one of fae's own words (host, self, me, fae, …).`;
      }
      const id = labels.get(who) ?? [...names].find(([, given]) => given.toLowerCase() === who.toLowerCase())?.[0];
      if (id === undefined) {
        return `I know no correspondent as ${q(who)} just now: name one by the label I gave it (unnamed-…), as my notices and approval requests show it.`;
      }
      const taken = [...names].find(([other, given]) => other !== id && given.toLowerCase() === name.toLowerCase());
      if (taken !== undefined) return `Another correspondent is called ${q(name)} already; choose another name.`;
      if (!names.has(id) && names.size >= HOST_NAMES_KEPT) return `I keep ${HOST_NAMES_KEPT} names at most; that is reached.`;
      names.set(id, name);
      try {
        await store({ names: [...names].map(([named, given]) => harden({ id: named, name: given })) });
      } catch (error) {
        logger.warn('correspondent-names-not-stored', { error });
        return `From now on I call ${who} ${name}, but I could not store that: after a restart I would forget it.`;
      }
      logger.event('correspondent-named', { name });
      return `From now on I call ${who} ${name}.`;
    },
  });
};
harden(makeHostNames);
export type HostNames = ReturnType<typeof makeHostNames>;

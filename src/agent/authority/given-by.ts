// Who gave fae what: the ids of the capabilities each correspondent
// attached to the messages fae took up, so that one may go back to whoever
// gave it without asking the host (giving someone their own capability
// gives them nothing). Noted as each turn starts, one identify per
// attachment, all at once; kept in memory for the latest correspondents
// and attachments only, so after a restart, or long after, the host is
// asked instead: the safe side.
import { E } from '@endo/far';
import type { GuestPowers, MessageRecord, Ref } from '../../daemon/endo-types.js';
import { formulaIdOf } from '../../daemon/dialect.js';
import { makeRecentMap } from '../../recent-map.js';
import { correspondentKeyOf } from '../../usage/usage-ledger.js';
import { REPORTED_ALREADY, inBackground } from '../../background.js';

/** Correspondents whose gifts are remembered, at most (the least recent go first). */
export const GIVERS_KEPT = 1024;
/** Capabilities remembered per correspondent, at most (the oldest go first). */
export const GIFTS_KEPT = 64;

export const makeGivenBy = (
  powers: Ref<GuestPowers>,
  { mailPath }: { readonly mailPath: (number: bigint, ...rest: string[]) => string[] },
) => {
  /** Per correspondent (by the key its usage is kept under): the ids it gave, oldest first. */
  const gifts = makeRecentMap<string, string[]>(GIVERS_KEPT);
  /** Notes still being read, per correspondent key, so that a question waits for them. */
  const reading = new Map<string, Promise<void>>();

  const remember = (key: string, ids: readonly string[]) => {
    const known = gifts.get(key) ?? [];
    const fresh = ids.filter(id => !known.includes(id));
    const kept = [...known, ...fresh].slice(-GIFTS_KEPT);
    gifts.set(key, kept);
  };

  return harden({
    /** Notes what `message` (from `correspondent`) attached; its attachments fae cannot identify are not noted. */
    note: (message: MessageRecord, correspondent: string) => {
      const edges = message.type === 'package' ? (message.names ?? []) : [];
      if (edges.length === 0) return;
      const key = correspondentKeyOf(correspondent);
      const identified = Promise.all(
        edges.map(edge =>
          Promise.resolve(E(powers).identify(...mailPath(message.number, edge))).then(
            id => (typeof id === 'string' ? (formulaIdOf(id) ?? id) : undefined),
            () => undefined,
          ),
        ),
      );
      const before = reading.get(key) ?? Promise.resolve();
      const done = Promise.all([before, identified]).then(([, ids]) => {
        remember(key, ids.filter((id): id is string => id !== undefined));
      });
      reading.set(key, done);
      const forget = () => {
        if (reading.get(key) === done) reading.delete(key);
      };
      // Whatever could not be identified is simply not noted.
      inBackground(done.then(forget, forget), REPORTED_ALREADY);
    },
    /** Whether `correspondent` gave fae the capability `id` (once what it gave is read). */
    gave: async (correspondent: string, id: string) => {
      const key = correspondentKeyOf(correspondent);
      await reading.get(key);
      return gifts.get(key)?.includes(id) ?? false;
    },
  });
};
harden(makeGivenBy);
export type GivenBy = ReturnType<typeof makeGivenBy>;

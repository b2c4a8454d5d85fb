// What a directory's followNameChanges() yields (old spec §4.2, new spec
// §4): `{add: name, value: {number, node, id?}}` or `{remove: name}`; first
// one `add` per name already there (special names first), then live
// changes; overwriting a name gives `remove` then `add`.
import { formulaIdOf } from './dialect.js';

/** One followNameChanges() item as the daemon sends it. */
export type NameChange =
  | {
      readonly add: string;
      readonly value: { readonly number: string; readonly node: string; readonly id?: string };
    }
  | { readonly remove: string };

/** A change of a pet name, with the formula id an added name now points at. */
export type PetNameChange = { readonly add: string; readonly id: string } | { readonly remove: string };

/** Reads the far reference followNameChanges() resolves to. */
export type OpenFollower = (ref: Promise<unknown>) => AsyncIterator<NameChange>;

/**
 * Reads one item; undefined for a malformed one, and for an `@` special
 * name unless `withSpecials` (a directory of tools has none that matter;
 * fae's own names do).
 */
export const readNameChange = (item: unknown, withSpecials = false): PetNameChange | undefined => {
  if (typeof item !== 'object' || item === null) return undefined;
  const record = item as Record<string, unknown>;
  const skipped = (name: string) => !withSpecials && name.startsWith('@');
  if (typeof record.remove === 'string') {
    return skipped(record.remove) ? undefined : harden({ remove: record.remove });
  }
  if (typeof record.add !== 'string' || skipped(record.add)) return undefined;
  const value = (record.value ?? {}) as Record<string, unknown>;
  // Feb items carry number and node only; the id is `<number>:<node>`.
  const raw =
    typeof value.id === 'string' ? value.id : `${String(value.number)}:${String(value.node)}`;
  return harden({ add: record.add, id: formulaIdOf(raw) ?? raw });
};
harden(readNameChange);

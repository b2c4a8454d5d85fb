// The check every dialect makes of a message's edge names beyond their
// syntax: none reserved (each dialect has its own list), none twice.
import { q } from '@endo/errors';

/** Refuses a reserved edge name, or one already in `seen` (to which it is added). */
export const assertEdgeNameFree = (name: string, seen: Set<string>, reserved: readonly string[]): void => {
  if (reserved.includes(name)) throw Error(`Message name ${q(name)} is reserved`);
  if (seen.has(name)) throw Error(`Message name ${q(name)} is duplicated`);
  seen.add(name);
};
harden(assertEdgeNameFree);

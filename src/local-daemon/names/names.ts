// src/local-daemon/names/: names in each generation's syntax, pet stores,
// hubs, directories, locators and the name changes followed.
// Imports: src/daemon and below, and the rest of src/local-daemon.
//
// Name syntax of the February daemon (spec §1.2), and the rules of each
// generation behind one interface (May and August: names-new.ts).
// Interface guards only check that names are strings; these checks run
// first inside every method.
import { q } from '@endo/errors';
import { assertEdgeNameFree } from './edge-names.js';
import type { Dialect } from '../../daemon/dialect.js';
import { newNameRules } from './names-new.js';
import type { NameRules } from './name-rules.js';

const PET_NAME = /^[a-z0-9][a-z0-9-]{0,127}$/;
const SPECIAL_NAME = /^[A-Z][A-Z0-9-]{0,127}$/;
const MAIL_SLOT_NAME = /^\d+$/;

/** Edge names a message may not use: they label the message hub's own fields. */
const RESERVED_EDGE_NAMES = harden([
  'FROM',
  'TO',
  'DATE',
  'TYPE',
  'MESSAGE',
  'REPLY',
  'DESCRIPTION',
  'STRINGS',
  'PROMISE',
  'RESOLVER',
]);

export const isPetName = (name: unknown): name is string =>
  typeof name === 'string' && PET_NAME.test(name);
export const isSpecialName = (name: unknown): name is string =>
  typeof name === 'string' && SPECIAL_NAME.test(name);
export const isName = (name: unknown): name is string =>
  isPetName(name) ||
  isSpecialName(name) ||
  (typeof name === 'string' && MAIL_SLOT_NAME.test(name));
harden(isPetName);
harden(isSpecialName);
harden(isName);

export const assertName = (name: string): void => {
  if (!isName(name)) throw Error(`Invalid name ${q(name)}`);
};
export const assertPetName = (name: string): void => {
  if (!isPetName(name)) throw Error(`Invalid pet name ${q(name)}`);
};
harden(assertName);
harden(assertPetName);

/** A string is a one-element path; every element must be a name. */
export const namePathFrom = (nameOrPath: string | readonly string[]): string[] => {
  const path = typeof nameOrPath === 'string' ? [nameOrPath] : [...nameOrPath];
  if (path.length === 0) throw Error('Invalid name path');
  path.forEach(assertName);
  return path;
};
harden(namePathFrom);

/** For operations that create or delete a binding: the last name must be a pet name. */
export const petNamePathFrom = (nameOrPath: string | readonly string[]): string[] => {
  const path = namePathFrom(nameOrPath);
  assertPetName(path[path.length - 1]);
  return path;
};
harden(petNamePathFrom);

/** Edge names label message attachments (spec §1.2, mail.js). */
export const assertEdgeNames = (edgeNames: readonly string[]): void => {
  const seen = new Set<string>();
  for (const name of edgeNames) {
    assertName(name);
    assertEdgeNameFree(name, seen, RESERVED_EDGE_NAMES);
  }
};
harden(assertEdgeNames);

const febNameRules: NameRules = harden({
  isPetName,
  isSpecialName,
  isName,
  assertName,
  assertPetName,
  namePathFrom,
  petNamePathFrom,
  assertEdgeNames,
});

export const nameRulesFor = (dialect: Dialect): NameRules =>
  dialect === 'feb' ? febNameRules : newNameRules;
harden(nameRulesFor);

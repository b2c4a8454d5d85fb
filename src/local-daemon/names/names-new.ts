// Name syntax of the May and August generations (next spec §1): a pet name
// is 1-255 characters without `/`, NUL or `@`, and not `.` or `..`; a
// special name is `@` and a lowercase word. "3", "SELF" and "A b.c" are
// ordinary pet names. Edge names may not be the message hub's own names.
import { q } from '@endo/errors';
import { assertEdgeNameFree } from './edge-names.js';
import type { NameRules } from './name-rules.js';

const SPECIAL_NAME = /^@[a-z][a-z0-9-]{0,127}$/;

const RESERVED_EDGE_NAMES: readonly string[] = harden([
  '@from',
  '@to',
  '@date',
  '@type',
  '@message',
  '@reply',
  '@description',
  '@strings',
  '@promise',
  '@resolver',
  '@result',
]);

const isPetName = (name: unknown): name is string =>
  typeof name === 'string' &&
  name.length > 0 &&
  name.length <= 255 &&
  !name.includes('/') &&
  !name.includes('\0') &&
  !name.includes('@') &&
  name !== '.' &&
  name !== '..';
const isSpecialName = (name: unknown): name is string => typeof name === 'string' && SPECIAL_NAME.test(name);
const isName = (name: unknown): name is string => isPetName(name) || isSpecialName(name);

const assertName = (name: string) => {
  if (!isName(name)) throw Error(`Invalid name ${q(name)}`);
};
const assertPetName = (name: string) => {
  if (!isPetName(name)) throw Error(`Invalid pet name ${q(name)}`);
};

const namePathFrom = (nameOrPath: string | readonly string[]): string[] => {
  const path = typeof nameOrPath === 'string' ? [nameOrPath] : [...nameOrPath];
  if (path.length === 0) throw Error('Invalid name path');
  path.forEach(assertName);
  return path;
};

export const newNameRules: NameRules = harden({
  isPetName,
  isSpecialName,
  isName,
  assertName,
  assertPetName,
  namePathFrom,
  petNamePathFrom: (nameOrPath: string | readonly string[]) => {
    const path = namePathFrom(nameOrPath);
    assertPetName(path[path.length - 1]);
    return path;
  },
  assertEdgeNames: (edgeNames: readonly string[]) => {
    // Every name's syntax first, then reserved and repeated names.
    edgeNames.forEach(assertName);
    const seen = new Set<string>();
    for (const name of edgeNames) assertEdgeNameFree(name, seen, RESERVED_EDGE_NAMES);
  },
});

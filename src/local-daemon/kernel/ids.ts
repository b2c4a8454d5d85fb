// Formula identifiers and message ids: random numbers written in lowercase
// hex, 128 digits in February (spec §1.1) and 64 in May and August (next
// spec §1); an id is `<formulaNumber>:<nodeNumber>`.
import { randomBytes } from 'node:crypto';
import { q } from '@endo/errors';
import type { Dialect } from '../../daemon/dialect.js';

const digits = (dialect: Dialect) => (dialect === 'feb' ? 128 : 64);
const patterns = new Map<number, RegExp>([
  [128, /^[0-9a-f]{128}:[0-9a-f]{128}$/],
  [64, /^[0-9a-f]{64}:[0-9a-f]{64}$/],
]);

/** A formula number, node number or message id of the dialect's length. */
export const makeRandomHex = (dialect: Dialect = 'feb'): string =>
  randomBytes(digits(dialect) / 2).toString('hex');
harden(makeRandomHex);

export const isValidId = (id: unknown, dialect: Dialect = 'feb'): id is string =>
  typeof id === 'string' && (patterns.get(digits(dialect)) as RegExp).test(id);
harden(isValidId);

export const assertValidId = (dialect: Dialect, id: string, petName?: string): void => {
  if (isValidId(id, dialect)) return;
  const suffix = petName === undefined ? '' : ` for pet name ${q(petName)}`;
  throw Error(`Invalid formula identifier ${q(id)}${suffix}`);
};
harden(assertValidId);

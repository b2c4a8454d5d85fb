// Formula identifiers and message ids (spec §1.1): 512 random bits written
// as 128 lowercase hex digits; an id is `<formulaNumber>:<nodeNumber>`.
import { randomBytes } from 'node:crypto';
import { q } from '@endo/errors';

const ID_PATTERN = /^[0-9a-f]{128}:[0-9a-f]{128}$/;

/** 128 lowercase hex digits: a formula number, node number or message id. */
export const makeRandomHex = (): string => randomBytes(64).toString('hex');
harden(makeRandomHex);

export const isValidId = (id: unknown): id is string =>
  typeof id === 'string' && ID_PATTERN.test(id);
harden(isValidId);

export const assertValidId = (id: string, petName?: string): void => {
  if (isValidId(id)) return;
  const suffix = petName === undefined ? '' : ` for pet name ${q(petName)}`;
  throw Error(`Invalid formula identifier ${q(id)}${suffix}`);
};
harden(assertValidId);

export const parseId = (id: string): { number: string; node: string } => {
  assertValidId(id);
  const [number, node] = id.split(':');
  return harden({ number, node });
};
harden(parseId);

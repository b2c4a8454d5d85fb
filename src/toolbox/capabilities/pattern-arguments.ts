// A model's JSON arguments as the passables a capability's guard expects:
// text for a big integer becomes a bigint, a pet name where a capability
// is expected becomes that capability (looked up with the turn's
// authority), records and arrays are decoded part by part. Nothing else
// is judged here: the capability's own guard judges the call, and its
// refusal reaches the model as the call's error.
import { q } from '@endo/errors';
import { matches } from '@endo/patterns';
import { isRecord } from '../../is-record.js';
import { readPattern, BIGINT_TEXT } from './pattern-schema.js';

/** Finds a capability by the pet name or path the model gave, with the turn's authority. */
export type LookUp = (nameOrPath: string) => Promise<unknown>;

const BIGINT = new RegExp(BIGINT_TEXT);

const asBigint = (value: unknown, where: string) => {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && BIGINT.test(value.trim())) return BigInt(value.trim());
  throw Error(`${where} must be a big integer written as text such as "+42", not ${q(value)}`);
};

const asCapability = async (value: unknown, where: string, lookUp: LookUp) => {
  if (typeof value !== 'string' || value.trim() === '') {
    throw Error(`${where} must be the pet name of a capability in your directory, not ${q(value)}`);
  }
  return lookUp(value.trim());
};

const KINDS_AS_BIGINT = new Set(['match:bigint', 'match:nat']);

/** `value` decoded for a matcher: the kinds JSON cannot carry, and the parts of containers. */
const decodeMatched = async (value: unknown, tag: string, payload: unknown, where: string, lookUp: LookUp): Promise<unknown> => {
  const parts = Array.isArray(payload) ? payload : [];
  if (KINDS_AS_BIGINT.has(tag) || (tag === 'match:kind' && payload === 'bigint')) return asBigint(value, where);
  if (tag === 'match:remotable' || (tag === 'match:kind' && payload === 'remotable')) return asCapability(value, where, lookUp);
  if (['match:gte', 'match:gt', 'match:lte', 'match:lt'].includes(tag) && typeof payload === 'bigint') return asBigint(value, where);
  if (tag === 'match:arrayOf' && Array.isArray(value)) {
    return Promise.all(value.map((item, i) => decodeArgument(item, parts[0], `${where}[${i}]`, lookUp)));
  }
  if (tag === 'match:splitArray' && Array.isArray(value)) {
    const [required = [], optional = [], rest] = parts as [unknown[]?, unknown[]?, unknown?];
    const patterns = [...required, ...optional];
    return Promise.all(value.map((item, i) => decodeArgument(item, i < patterns.length ? patterns[i] : rest, `${where}[${i}]`, lookUp)));
  }
  if (tag === 'match:splitRecord' && isRecord(value)) {
    const [required = {}, optional = {}, rest] = parts as [Record<string, unknown>?, Record<string, unknown>?, unknown?];
    const patternOf = (name: string) => (Object.hasOwn(required, name) ? required[name] : Object.hasOwn(optional, name) ? optional[name] : rest);
    return decodeRecord(value, patternOf, where, lookUp);
  }
  if (tag === 'match:recordOf' && isRecord(value)) return decodeRecord(value, () => parts[1], where, lookUp);
  if (tag === 'match:or') return decodeFirstMatching(value, parts, where, lookUp);
  if (tag === 'match:and' && parts.length > 0) return decodeArgument(value, parts[0], where, lookUp);
  return value;
};

const decodeRecord = async (value: Record<string, unknown>, patternOf: (name: string) => unknown, where: string, lookUp: LookUp) => {
  const entries = await Promise.all(
    Object.entries(value).map(async ([name, item]) => [name, await decodeArgument(item, patternOf(name), `${where}.${name}`, lookUp)] as const),
  );
  return Object.fromEntries(entries);
};

/** Of the alternatives, the first under which `value` decodes into something it matches. */
const decodeFirstMatching = async (value: unknown, alternatives: readonly unknown[], where: string, lookUp: LookUp) => {
  for (const alternative of alternatives) {
    try {
      // In order on purpose: the first alternative that fits wins, as M.or reads.
      // eslint-disable-next-line no-await-in-loop
      const decoded = harden(await decodeArgument(value, alternative, where, lookUp));
      if (matches(decoded as never, alternative as never)) return decoded;
    } catch {
      // Not this alternative.
    }
  }
  return value;
};

/**
 * `value`, given by the model for the argument `where` whose pattern is
 * `pattern` (undefined: no pattern known, the value is passed as it is).
 */
export const decodeArgument = async (value: unknown, pattern: unknown, where: string, lookUp: LookUp): Promise<unknown> => {
  if (pattern === undefined) return value;
  const node = readPattern(pattern);
  if (node.kind === 'matcher') return decodeMatched(value, node.tag, node.payload, where, lookUp);
  if (node.kind === 'record' && isRecord(value)) {
    const patterns = Object.fromEntries(node.entries);
    return decodeRecord(value, name => patterns[name], where, lookUp);
  }
  if (node.kind === 'array' && Array.isArray(value)) {
    return Promise.all(value.map((item, i) => decodeArgument(item, node.items[i], `${where}[${i}]`, lookUp)));
  }
  if (node.kind === 'literal' && node.style === 'bigint') return asBigint(value, where);
  return value;
};
harden(decodeArgument);

// src/toolbox/capabilities/: any capability as tools, from its own
// interface guard (issue 38). Imports: the layers below src/toolbox, and
// the rest of src/toolbox.
//
// A pattern (@endo/patterns) as the JSON Schema a model is shown. JSON has
// no bigints, no capabilities, no undefined: those are given as text the
// call decodes (pattern-arguments.ts) and said so in the description. A
// pattern JSON cannot express (a set, a promise, a symbol) is described in
// words, never dropped, so the model knows the call will be refused.
import { getTag, passStyleOf } from '@endo/marshal';
import { M } from '@endo/patterns';
import type { JsonSchema } from '../../../providers/types.js';

/** What a pattern is, once: a matcher's tag and payload, or a literal value. */
export type PatternNode =
  | { readonly kind: 'matcher'; readonly tag: string; readonly payload: unknown }
  | { readonly kind: 'record'; readonly entries: readonly (readonly [string, unknown])[] }
  | { readonly kind: 'array'; readonly items: readonly unknown[] }
  | { readonly kind: 'literal'; readonly value: unknown; readonly style: string };

/** Reads a pattern (a passable) as a node; a guard wrapper (M.await, M.raw) is seen through. */
export const readPattern = (pattern: unknown): PatternNode => {
  const style: string = passStyleOf(harden(pattern) as Parameters<typeof passStyleOf>[0]);
  if (style === 'tagged') {
    const tag = getTag(pattern as never);
    const { payload } = pattern as { payload: unknown };
    if (tag === 'guard:awaitArgGuard') return readPattern((payload as { argGuard: unknown }).argGuard);
    if (tag === 'guard:rawGuard') return { kind: 'matcher', tag: 'match:any', payload: undefined };
    return { kind: 'matcher', tag, payload };
  }
  if (style === 'copyRecord') return { kind: 'record', entries: Object.entries(pattern as object) };
  if (style === 'copyArray') return { kind: 'array', items: pattern as unknown[] };
  return { kind: 'literal', value: pattern, style };
};
harden(readPattern);

/** The pattern an argument guard checks: M.await's inner pattern, and anything for M.raw. */
export const plainPattern = (guard: unknown): unknown => {
  if (passStyleOf(harden(guard) as Parameters<typeof passStyleOf>[0]) !== 'tagged') return guard;
  const tag = getTag(guard as never);
  if (tag === 'guard:awaitArgGuard') return (guard as { payload: { argGuard: unknown } }).payload.argGuard;
  if (tag === 'guard:rawGuard') return M.any();
  return guard;
};
harden(plainPattern);

/** Whether an argument of `pattern` is a capability (given by its pet name). */
export const isCapabilityPattern = (pattern: unknown) => {
  const node = readPattern(pattern);
  return node.kind === 'matcher' && (node.tag === 'match:remotable' || (node.tag === 'match:kind' && node.payload === 'remotable'));
};
harden(isCapabilityPattern);

/** How a bigint is written: SmallCaps text, or a plain integer. */
export const BIGINT_TEXT = '^[+-]?[0-9]+$';
const bigintSchema = (what: string): JsonSchema => ({
  type: 'string',
  pattern: BIGINT_TEXT,
  description: `${what}, written as text such as "+42" or "-7"`,
});
const CAPABILITY_SCHEMA: JsonSchema = {
  type: 'string',
  description: 'a capability: its pet name (or path, as "tools/greeter") in your directory',
};
const described = (description: string): JsonSchema => ({ description });

/** A literal value the argument must equal. */
const literalSchema = (value: unknown, style: string): JsonSchema => {
  if (style === 'bigint') return { type: 'string', const: `${(value as bigint) < 0n ? '' : '+'}${value}` };
  if (style === 'undefined') return described('must be left out (undefined)');
  if (style === 'null') return { type: 'null' };
  if (style === 'string' || style === 'number' || style === 'boolean') return { const: value };
  return described(`must be the ${style} the capability expects; it cannot be written in JSON`);
};

/** What a kind (M.string(), M.remotable(), …) accepts. */
const kindSchema = (kind: unknown): JsonSchema => {
  switch (kind) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'null':
      return { type: kind };
    case 'bigint':
      return bigintSchema('a big integer');
    case 'remotable':
      return CAPABILITY_SCHEMA;
    case 'copyRecord':
      return { type: 'object' };
    case 'copyArray':
      return { type: 'array' };
    case 'undefined':
      return described('must be left out (undefined)');
    default:
      return described(`a ${String(kind)}, which cannot be written in JSON`);
  }
};

/** A bound (M.gte(3), M.lt(10n)) as a schema. */
const boundSchema = (tag: string, operand: unknown): JsonSchema => {
  const words: Record<string, string> = { 'match:gte': 'at least', 'match:gt': 'more than', 'match:lte': 'at most', 'match:lt': 'less than' };
  if (typeof operand === 'number') {
    const key = { 'match:gte': 'minimum', 'match:gt': 'exclusiveMinimum', 'match:lte': 'maximum', 'match:lt': 'exclusiveMaximum' }[tag];
    return key === undefined ? { type: 'number' } : { type: 'number', [key]: operand };
  }
  if (typeof operand === 'bigint') return bigintSchema(`a big integer ${words[tag]} ${operand}`);
  return described(`a value ${words[tag] ?? 'compared with'} ${String(operand)}`);
};

const limitsOf = (payload: unknown) => (Array.isArray(payload) && typeof payload[0] === 'object' ? payload[0] : {});

/** Which properties a record pattern requires, offers, and whether it allows others. */
const objectSchema = (required: readonly (readonly [string, unknown])[], optional: readonly (readonly [string, unknown])[], rest: unknown): JsonSchema => {
  const properties = Object.fromEntries([...required, ...optional].map(([name, pattern]) => [name, patternSchema(pattern)]));
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required: required.map(([name]) => name) } : {}),
    additionalProperties: rest === undefined ? false : patternSchema(rest),
  };
};

/** A matcher (M.*) as a schema. */
const matcherSchema = (tag: string, payload: unknown): JsonSchema => {
  const parts = Array.isArray(payload) ? payload : [];
  switch (tag) {
    case 'match:any':
    case 'match:pattern':
      return described('any value');
    case 'match:scalar':
    case 'match:key':
      return described(tag === 'match:scalar' ? 'a string, number, boolean, null, big integer (as "+42") or capability name' : 'any value that can be compared: no promises or errors');
    case 'match:kind':
      return kindSchema(payload);
    case 'match:string': {
      const { stringLengthLimit } = limitsOf(payload) as { stringLengthLimit?: number };
      return stringLengthLimit === undefined ? { type: 'string' } : { type: 'string', maxLength: stringLengthLimit };
    }
    case 'match:bigint':
      return bigintSchema('a big integer');
    case 'match:nat':
      return { ...bigintSchema('a natural number (0 or more, a big integer)'), pattern: '^\\+?[0-9]+$' };
    case 'match:remotable': {
      const label = (payload as { label?: unknown } | undefined)?.label;
      return typeof label === 'string' ? { ...CAPABILITY_SCHEMA, description: `${CAPABILITY_SCHEMA.description} (a ${label})` } : CAPABILITY_SCHEMA;
    }
    case 'match:gte':
    case 'match:gt':
    case 'match:lte':
    case 'match:lt':
      return boundSchema(tag, payload);
    case 'match:or': {
      const literals = parts.every(part => typeof part === 'string' || typeof part === 'number');
      return literals ? { enum: parts } : { anyOf: parts.map(patternSchema) };
    }
    case 'match:and':
      return { allOf: parts.map(patternSchema) };
    case 'match:not':
      return { not: patternSchema(payload) };
    case 'match:arrayOf':
      return { type: 'array', items: patternSchema(parts[0]) };
    case 'match:recordOf':
      return { type: 'object', additionalProperties: patternSchema(parts[1]) };
    case 'match:splitArray': {
      const [required = [], optional = [], rest] = parts as [unknown[]?, unknown[]?, unknown?];
      const items = [...required, ...optional].map(patternSchema);
      return {
        type: 'array',
        description: `${required.length} item(s) required, then up to ${optional.length} optional${rest === undefined ? '' : ', then any number more'}, in order`,
        ...(items.length > 0 ? { prefixItems: items } : {}),
        minItems: required.length,
        ...(rest === undefined ? { maxItems: items.length } : {}),
      };
    }
    case 'match:splitRecord': {
      const [required = {}, optional = {}, rest] = parts as [object?, object?, unknown?];
      return objectSchema(Object.entries(required), Object.entries(optional), rest);
    }
    default:
      return described(`a value matching ${tag.replace(/^match:/, '')}, which cannot be written in JSON`);
  }
};

/** The JSON Schema of what `pattern` accepts. */
export const patternSchema = (pattern: unknown): JsonSchema => {
  const node = readPattern(pattern);
  switch (node.kind) {
    case 'matcher':
      return matcherSchema(node.tag, node.payload);
    case 'record':
      return objectSchema(node.entries, [], undefined);
    case 'array':
      return { type: 'array', prefixItems: node.items.map(patternSchema), minItems: node.items.length, maxItems: node.items.length };
    default:
      return literalSchema(node.value, node.style);
  }
};
harden(patternSchema);

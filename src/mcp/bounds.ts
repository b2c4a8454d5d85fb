// The bounds of an attenuated copy of an MCP tool, which the host sets
// when it makes the copy and the bridge checks before every call:
//
//   { "pin":   { "path": "/srv/project/notes.md" },  a fixed value; the model no longer passes it
//     "under": { "path": "/srv/project" },           a path (or each path of a list) inside a folder
//     "oneOf": { "to": ["ada@example.org"] } }       a value (or each of a list) among some
//
// A path is resolved lexically against its folder ("." and ".." taken
// away) and sent to the server resolved, so the server acts on the very
// path that was checked. The copy's schema says what is bounded, so the
// model is told the rule rather than finding it by failing.
import path from 'node:path';
import { q } from '@endo/errors';
import { isRecord } from '../is-record.js';

export interface Bounds {
  readonly pin: Readonly<Record<string, unknown>>;
  readonly under: Readonly<Record<string, string>>;
  readonly oneOf: Readonly<Record<string, readonly unknown[]>>;
}

const KINDS = ['pin', 'under', 'oneOf'];

const recordOf = (bounds: Record<string, unknown>, kind: string): Record<string, unknown> => {
  const value = bounds[kind] ?? {};
  if (!isRecord(value)) throw Error(`bounds.${kind} must be a record of argument names, not ${q(value)}`);
  return value;
};

/** Reads bounds from their JSON text; throws a clear error for anything else. */
export const parseBounds = (text: string): Bounds => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw Error(`The bounds must be JSON, as in {"under":{"path":"/srv/project"}}, not ${q(text)}`);
  }
  if (!isRecord(parsed)) throw Error(`The bounds must be a JSON record, not ${q(text)}`);
  const unknown = Object.keys(parsed).filter(key => !KINDS.includes(key));
  if (unknown.length > 0) throw Error(`Unknown bounds ${q(unknown)}; use "pin", "under" or "oneOf"`);
  const pin = recordOf(parsed, 'pin');
  const under = recordOf(parsed, 'under');
  const oneOf = recordOf(parsed, 'oneOf');
  for (const [name, folder] of Object.entries(under)) {
    if (typeof folder !== 'string' || !path.posix.isAbsolute(folder)) {
      throw Error(`bounds.under.${name} must be an absolute folder, not ${q(folder)}`);
    }
  }
  for (const [name, choices] of Object.entries(oneOf)) {
    if (!Array.isArray(choices) || choices.length === 0) {
      throw Error(`bounds.oneOf.${name} must be a non-empty list of allowed values, not ${q(choices)}`);
    }
  }
  const bounded = [...Object.keys(under), ...Object.keys(oneOf)];
  const twice = Object.keys(pin).filter(name => bounded.includes(name));
  if (twice.length > 0) throw Error(`Arguments ${q(twice)} are pinned and bounded at once; pin or bound each`);
  const normalised = Object.fromEntries(Object.entries(under).map(([name, folder]) => [name, path.posix.resolve(folder as string)]));
  return harden({ pin, under: normalised, oneOf: oneOf as Record<string, unknown[]> });
};
harden(parseBounds);

const inFolder = (name: string, folder: string, value: unknown): string => {
  if (typeof value !== 'string') throw Error(`argument ${q(name)} must be a path, not ${q(value)}`);
  const resolved = path.posix.resolve(folder, value);
  if (resolved !== folder && !resolved.startsWith(folder === '/' ? '/' : `${folder}/`)) {
    throw Error(`argument ${q(name)} must be a path under ${q(folder)}; ${q(value)} is outside it`);
  }
  return resolved;
};

const among = (name: string, choices: readonly unknown[], value: unknown) => {
  if (!choices.some(choice => JSON.stringify(choice) === JSON.stringify(value))) {
    throw Error(`argument ${q(name)} must be one of ${q(choices)}, not ${q(value)}`);
  }
  return value;
};

/** Applies `check` to a value, or to each item of a list of values. */
const eachOf = (value: unknown, check: (item: unknown) => unknown) =>
  Array.isArray(value) ? harden(value.map(check)) : check(value);

/**
 * The arguments to send: pinned values set, bounded values checked (paths
 * resolved). Throws, before anything reaches the server, when an argument
 * is outside its bounds or contradicts a pin.
 */
export const applyBounds = (bounds: Bounds, args: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const sent: Record<string, unknown> = { ...args };
  for (const [name, value] of Object.entries(bounds.pin)) {
    if (name in args && args[name] !== null && JSON.stringify(args[name]) !== JSON.stringify(value)) {
      throw Error(`argument ${q(name)} is fixed to ${q(value)} for this tool; leave it out`);
    }
    sent[name] = value;
  }
  for (const [name, folder] of Object.entries(bounds.under)) {
    if (sent[name] !== undefined) sent[name] = eachOf(sent[name], item => inFolder(name, folder, item));
  }
  for (const [name, choices] of Object.entries(bounds.oneOf)) {
    if (sent[name] !== undefined) sent[name] = eachOf(sent[name], item => among(name, choices, item));
  }
  return harden(sent);
};
harden(applyBounds);

/** The input schema the model sees for the copy: pinned arguments gone, bounds told. */
export const boundedInputSchema = (bounds: Bounds, inputSchema: Readonly<Record<string, unknown>>) => {
  const properties: Record<string, unknown> = isRecord(inputSchema.properties) ? { ...inputSchema.properties } : {};
  const required = Array.isArray(inputSchema.required) ? inputSchema.required.filter(name => !(name in bounds.pin)) : undefined;
  for (const name of Object.keys(bounds.pin)) delete properties[name];
  const note = (name: string, rule: string) => {
    const property = isRecord(properties[name]) ? properties[name] : {};
    const description = typeof property.description === 'string' ? `${property.description} ` : '';
    properties[name] = { ...property, description: `${description}(${rule})` };
  };
  for (const [name, folder] of Object.entries(bounds.under)) note(name, `must be under ${folder}`);
  for (const [name, choices] of Object.entries(bounds.oneOf)) note(name, `must be one of ${JSON.stringify(choices)}`);
  return harden({ ...inputSchema, properties, ...(required === undefined ? {} : { required }) });
};
harden(boundedInputSchema);

/** A line for a person reading the copy's help. */
export const describeBounds = (bounds: Bounds): string => {
  const parts = [
    ...Object.entries(bounds.pin).map(([name, value]) => `${name} fixed to ${JSON.stringify(value)}`),
    ...Object.entries(bounds.under).map(([name, folder]) => `${name} under ${folder}`),
    ...Object.entries(bounds.oneOf).map(([name, choices]) => `${name} one of ${JSON.stringify(choices)}`),
  ];
  return parts.length === 0 ? 'no bounds' : parts.join('; ');
};
harden(describeBounds);

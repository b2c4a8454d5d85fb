// Readers for the built-in tools' arguments: each checks one argument and
// says exactly what was wrong, quoting what the model sent.
import { q } from '@endo/errors';

type Args = Readonly<Record<string, unknown>>;

// A missing argument is named as missing: "not undefined" (quoted by q()
// as "[undefined]") reads to a model like a value it sent.
const isMissing = (value: unknown) => value === undefined || value === null;

export const readString = (args: Args, key: string): string => {
  const value = args[key];
  if (isMissing(value)) {
    throw Error(`${key} is required: a non-empty string`);
  }
  if (typeof value !== 'string' || value === '') {
    throw Error(`${key} is required and must be a non-empty string, not ${q(value)}`);
  }
  return value;
};
harden(readString);

export const readStringArray = (args: Args, key: string): readonly string[] => {
  const value = args[key] ?? [];
  if (!Array.isArray(value) || value.some(item => typeof item !== 'string')) {
    throw Error(`${key} must be an array of strings, not ${q(value)}`);
  }
  return harden([...value]);
};
harden(readStringArray);

/** A pet name, or a path written as an array or with "/" between names. */
export const readNamePath = (args: Args, key: string): readonly string[] => {
  const value = args[key];
  if (Array.isArray(value) && value.length > 0 && value.every(s => typeof s === 'string')) {
    return harden([...value]);
  }
  if (typeof value === 'string' && value !== '') {
    return harden(value.split('/').filter(part => part !== ''));
  }
  const expected = 'a pet name such as "notes" or a path such as "tools/greet"';
  if (isMissing(value)) {
    throw Error(`${key} is required: ${expected}`);
  }
  throw Error(`${key} must be ${expected}, not ${q(value)}`);
};
harden(readNamePath);

/** An optional yes/no argument: absent (or null) is false. */
export const readFlag = (args: Args, key: string): boolean => {
  const value = args[key] ?? false;
  if (typeof value !== 'boolean') {
    throw Error(`${key} must be true or false, not ${q(value)}`);
  }
  return value;
};
harden(readFlag);

/** An optional text argument: absent, null or "" is undefined. */
export const readOptionalString = (args: Args, key: string): string | undefined => {
  const value = args[key] ?? '';
  if (typeof value !== 'string') {
    throw Error(`${key} must be a string, not ${q(value)}`);
  }
  return value === '' ? undefined : value;
};
harden(readOptionalString);

// One test for "a plain record": an object that is not an array, as a
// JSON object or a copyRecord is. (src/tool-kit keeps its own: it is
// self-contained, for the tools built from it.)

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
harden(isRecord);

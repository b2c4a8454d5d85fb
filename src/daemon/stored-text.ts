// Values fae keeps in its directory as JSON text (conversation nodes, the
// usage totals): CapTP copies a string whole, where it checks and copies a
// record object by object on both sides. Read back, the text is parsed
// and frozen all the way down; a value stored as plain data by an earlier
// version of fae is taken as it is.

/**
 * Freezes what JSON.parse made, all the way down. Plain data (no
 * prototype but Object's or Array's, no accessor, no function) needs no
 * more to be kept as fae keeps every record, and hardening a six-turn
 * chunk, which looks at each object's prototype and descriptors, took
 * five times as long.
 */
const freezeParsed = <T>(value: T): T => {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) freezeParsed(child);
    Object.freeze(value);
  }
  return value;
};

/**
 * What a stored value holds: its JSON text parsed and frozen, or the value
 * itself when it is not text. Throws `notJson(text)` when the text is not
 * JSON.
 */
export const readStoredText = (value: unknown, notJson: (text: string) => string): unknown => {
  if (typeof value !== 'string') return value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw Error(notJson(value));
  }
  return freezeParsed(parsed);
};
harden(readStoredText);

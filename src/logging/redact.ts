// Secrets must never reach a log line, an error text, a transcript or mail.
// makeRedactor(secrets) returns a function that blanks every occurrence of
// the given secret values, and of common credential shapes, in a text.

const REDACTED = '[redacted]';

// Credential shapes that may appear even when we were not told the value:
// bearer headers, API-key headers, and the key formats of the big providers.
// Kept as sources: a hardened global RegExp cannot update its lastIndex.
const CREDENTIAL_PATTERNS: readonly (readonly [string, string])[] = harden([
  ['\\b(Bearer\\s+)[A-Za-z0-9._~+/=-]{8,}', 'gi'],
  ['\\b((?:x-api-key|api-key|authorization)["\']?\\s*[:=]\\s*["\']?)[^"\',\\s}]{8,}', 'gi'],
  ['\\bsk-[A-Za-z0-9_-]{8,}', 'g'],
]);

/** Secrets shorter than this are not redacted by value: too many false hits. */
const MIN_SECRET_LENGTH = 4;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export type Redact = (text: string) => string;

export const makeRedactor = (secrets: readonly (string | undefined)[]): Redact => {
  const values = secrets.filter(
    (s): s is string => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH,
  );
  const byValue =
    values.length > 0
      ? new RegExp(values.map(escapeRegExp).join('|'), 'g')
      : undefined;
  const patterns = CREDENTIAL_PATTERNS.map(
    ([source, flags]) => new RegExp(source, flags),
  );
  const redact = (text: string) => {
    let out = byValue ? text.replace(byValue, REDACTED) : text;
    for (const pattern of patterns) {
      out = out.replace(pattern, (match, prefix?: string) =>
        typeof prefix === 'string' && match.startsWith(prefix)
          ? `${prefix}${REDACTED}`
          : REDACTED,
      );
    }
    return out;
  };
  return harden(redact);
};
harden(makeRedactor);

/** The environment variables whose values are secrets. */
export const SECRET_ENV_NAMES: readonly string[] = harden(['LAL_AUTH_TOKEN']);

/** A redactor for every secret found in an environment record. */
export const makeEnvRedactor = (env: Readonly<Record<string, string | undefined>>) =>
  makeRedactor(SECRET_ENV_NAMES.map(name => env[name]));
harden(makeEnvRedactor);

// Secrets must never reach a log line, an error text, a transcript or mail.
// makeRedactor(secrets) returns a function that blanks every occurrence of
// the given secret values, and of common credential shapes, in a text.
// A URL setting (LAL_HOST) may carry secrets too: its user info and its
// query values (`https://user:pass@host/?key=…`). urlSecrets finds them for
// the redactor, and redactUrl shows such a URL with them blanked.

const REDACTED = '[redacted]';

// Credential shapes that may appear even when we were not told the value:
// bearer headers, API-key headers, the key formats of the big providers,
// and the user:password part of any URL.
// Kept as sources: a hardened global RegExp cannot update its lastIndex.
const CREDENTIAL_PATTERNS: readonly (readonly [string, string])[] = harden([
  ['\\b(Bearer\\s+)[A-Za-z0-9._~+/=-]{8,}', 'gi'],
  ['\\b((?:x-api-key|api-key|authorization)["\']?\\s*[:=]\\s*["\']?)[^"\',\\s}]{8,}', 'gi'],
  ['\\bsk-[A-Za-z0-9_-]{8,}', 'g'],
  ['\\b([a-z][a-z0-9+.-]*://)[^\\s/?#@:]+:[^\\s/?#]+(?=@)', 'gi'],
]);

/** Secrets shorter than this are not redacted by value: too many false hits. */
const MIN_SECRET_LENGTH = 4;

/**
 * A query value shorter than this is taken for a setting (`format=json`,
 * `api-version=2024`), not a key: blanking every "json" in fae's mail would
 * garble it. redactUrl still blanks it wherever the URL itself is shown.
 */
const MIN_QUERY_SECRET_LENGTH = 8;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export type Redact = (text: string) => string;

export const makeRedactor = (secrets: readonly (string | undefined)[]): Redact => {
  const values = secrets.filter(
    (s): s is string => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH,
  );
  // Longest first, so a secret that contains another is blanked whole.
  const alternatives = [...new Set(values)].sort((a, b) => b.length - a.length);
  const byValue =
    alternatives.length > 0
      ? new RegExp(alternatives.map(escapeRegExp).join('|'), 'g')
      : undefined;
  const patterns = CREDENTIAL_PATTERNS.map(
    ([source, flags]) => new RegExp(source, flags),
  );
  // Whether anything in a text could need blanking, in one pass: every
  // pattern above, ignoring case (so it finds all they find, and maybe
  // more). Most texts (log lines, answers) hold nothing, and the passes
  // that blank are then skipped.
  const anything = new RegExp(
    [...(byValue === undefined ? [] : [byValue.source]), ...CREDENTIAL_PATTERNS.map(([source]) => source)].join('|'),
    'i',
  );
  const redact = (text: string) => {
    if (!anything.test(text)) return text;
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

/** `text` cut at the first `separator`: before it, and after it if it occurs. */
const cutAt = (text: string, separator: string): [string, string | undefined] => {
  const at = text.indexOf(separator);
  return at === -1 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
};

/**
 * The parts of a URL that may hold secrets, read from the text as written
 * (a URL that does not parse may still be quoted in an error): the scheme
 * and `//`, the user info before the host, the rest up to the query, the
 * query's `name=value` pairs, and the fragment.
 */
const splitUrl = (url: string) => {
  const [beforeFragment, fragment] = cutAt(url, '#');
  const [base, query] = cutAt(beforeFragment, '?');
  const authority = /^([a-z][a-z0-9+.-]*:\/\/)?([^/]*)@/i.exec(base);
  return {
    scheme: authority?.[1] ?? '',
    userInfo: authority?.[2],
    rest: authority === null ? base : base.slice(authority[0].length),
    pairs: query === undefined ? undefined : query.split('&').map(pair => cutAt(pair, '=')),
    fragment,
  };
};

/** A URL as it may be shown: its user info and query values blanked. */
export const redactUrl = (url: string): string => {
  const { scheme, userInfo, rest, pairs, fragment } = splitUrl(url);
  const shownPairs = pairs?.map(([name, value]) =>
    value === undefined ? name : `${name}=${value === '' ? '' : REDACTED}`,
  );
  return [
    scheme,
    userInfo === undefined ? '' : `${REDACTED}@`,
    rest,
    shownPairs === undefined ? '' : `?${shownPairs.join('&')}`,
    fragment === undefined ? '' : `#${fragment}`,
  ].join('');
};
harden(redactUrl);

/** A value as written, decoded, and encoded again: a server may echo any form. */
const spellings = (written: string): string[] => {
  try {
    const decoded = decodeURIComponent(written.replace(/\+/g, ' '));
    return [written, decoded, encodeURIComponent(decoded)];
  } catch {
    return [written];
  }
};

/**
 * The secrets a URL carries, for the redactor: its user info, its password
 * alone, and its query values (those long enough to be keys), each in every
 * spelling a server might echo.
 */
export const urlSecrets = (url: string | undefined): readonly string[] => {
  if (url === undefined) return harden([]);
  const { userInfo, pairs = [] } = splitUrl(url.trim());
  const [, password] = userInfo === undefined ? [] : cutAt(userInfo, ':');
  const queryValues = pairs
    .map(([, value]) => value ?? '')
    .filter(value => value.length >= MIN_QUERY_SECRET_LENGTH);
  const found = [userInfo, password, ...queryValues].filter(
    (value): value is string => value !== undefined && value !== '',
  );
  return harden([...new Set(found.flatMap(spellings))]);
};
harden(urlSecrets);

/** The environment variables whose values are secrets. */
export const SECRET_ENV_NAMES: readonly string[] = harden(['LAL_AUTH_TOKEN']);

/** The environment variables holding a URL that may carry secrets. */
export const SECRET_URL_ENV_NAMES: readonly string[] = harden(['LAL_HOST']);

/** The secrets an env holds: the token, and what LAL_HOST's URL carries. */
const envSecrets = (env: Readonly<Record<string, string | undefined>>) => [
  ...SECRET_ENV_NAMES.map(name => env[name]),
  ...SECRET_URL_ENV_NAMES.flatMap(name => urlSecrets(env[name])),
];

/** A redactor for every secret found in an environment record. */
export const makeEnvRedactor = (env: Readonly<Record<string, string | undefined>>) => makeRedactor(envSecrets(env));
harden(makeEnvRedactor);

/** A redactor that can be told of more secrets, as fae's settings change while it runs. */
export interface LearningRedactor {
  readonly redact: Redact;
  /** From now on, the secrets of `env` are blanked too (and those learnt before still are). */
  readonly learn: (env: Readonly<Record<string, string | undefined>>) => void;
}

export const makeLearningRedactor = (env: Readonly<Record<string, string | undefined>>): LearningRedactor => {
  let secrets = envSecrets(env);
  let current = makeRedactor(secrets);
  return harden({
    redact: (text: string) => current(text),
    learn: next => {
      secrets = [...secrets, ...envSecrets(next)];
      current = makeRedactor(secrets);
    },
  });
};
harden(makeLearningRedactor);

// Which generation of the Endo guest API fae is talking to, and the facts
// that differ between them: special names and the two locator syntaxes
// (../shared/spec/endo-guest-api-next.md §1, §2, §8, §9). Detection uses
// only __getMethodNames__(), which every exo answers and which cannot
// throw, so probing leaves no error in the daemon's log.
import { E } from '@endo/far';
import { q } from '@endo/errors';

/**
 * `feb`: f0a46042a (also master): `HOST`/`SELF`/`MAIL`, formula ids in mail.
 * `may`: branch llm (33311ae9a): `@`-specials, `?id=` locators in mail.
 * `aug`: 1ef30c259 and later: path locators, edits with `done`, and follow
 * methods that return a syn/ack stream reader.
 */
export type Dialect = 'feb' | 'may' | 'aug';

/** The special names one generation uses, by role. */
export interface SpecialNames {
  /** A guest's host (recipient of announcements). */
  readonly host: string;
  /** The agent's own handle. */
  readonly self: string;
  /** The read-only directory of the inbox's messages. */
  readonly mail: string;
  /** A host's own powers. */
  readonly agent: string;
  /** A host's main worker. */
  readonly main: string;
  /** A host's directory of values revived at daemon start. */
  readonly pins: string;
  /** The powers name that gives a caplet no authority. */
  readonly none: string;
}

const OLD_NAMES: SpecialNames = harden({
  host: 'HOST',
  self: 'SELF',
  mail: 'MAIL',
  agent: 'AGENT',
  main: 'MAIN',
  pins: 'PINS',
  none: 'NONE',
});

const NEW_NAMES: SpecialNames = harden({
  host: '@host',
  self: '@self',
  mail: '@mail',
  agent: '@agent',
  main: '@main',
  pins: '@pins',
  none: '@none',
});

export const specialNames = (dialect: Dialect): SpecialNames =>
  dialect === 'feb' ? OLD_NAMES : NEW_NAMES;
harden(specialNames);

/**
 * The dialect an agent's (guest's or host's) method names reveal (§9):
 * `storeIdentifier` is new, `editMessage` is the August line; `write` or
 * `requestEvaluation` is February.
 */
export const dialectFromMethodNames = (names: readonly (string | symbol)[]): Dialect => {
  const has = (name: string) => names.includes(name);
  if (has('storeIdentifier')) return has('editMessage') ? 'aug' : 'may';
  if (has('write') || has('requestEvaluation')) return 'feb';
  throw Error(
    `Cannot tell which Endo daemon this is: its agent has none of the methods write, requestEvaluation or storeIdentifier (it has ${q(names.filter(name => typeof name === 'string'))})`,
  );
};
harden(dialectFromMethodNames);

/** Asks the agent (guest or host powers) which dialect it speaks. */
export const detectDialect = async (agent: unknown): Promise<Dialect> => {
  // `any`: a remote object; __getMethodNames__ is on every exo and Far.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const names = (await E(agent as any).__getMethodNames__()) as readonly (string | symbol)[];
  return dialectFromMethodNames(names);
};
harden(detectDialect);

const ID_PATTERN = /^[0-9a-f]+:[0-9a-f]+$/;

/** Whether a string is a raw formula id (`<number>:<node>`, lowercase hex). */
export const isFormulaId = (text: string): boolean => ID_PATTERN.test(text);
harden(isFormulaId);

/**
 * The raw formula id (`<number>:<node>`) that a raw id or a locator in
 * either syntax names, or undefined when the text is neither. Hints (`at=`
 * parameters on May, `@hint` suffixes on August) are ignored, so a locator
 * with hints and one without compare equal (§2).
 *   May:  endo://<node>/?id=<number>&type=<t>[&at=…]
 *   Aug:  endo://<node>/<number>[@<hint>…]?type=<t>
 */
export const formulaIdOf = (text: string): string | undefined => {
  if (isFormulaId(text)) return text;
  if (!text.startsWith('endo://')) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const node = url.host;
  let number = url.searchParams.get('id') ?? '';
  if (number === '') {
    const segment = url.pathname.split('/').find(part => part !== '') ?? '';
    try {
      number = decodeURIComponent(segment.split('@')[0] ?? '');
    } catch {
      return undefined;
    }
  }
  const id = `${number}:${node}`;
  return isFormulaId(id) ? id : undefined;
};
harden(formulaIdOf);

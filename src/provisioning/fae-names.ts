// The host-side names of one fae, made from the name the host gives it
// (FAE_NAME; `fae` by default): its guest `helper` (its mail identity),
// that guest's powers `profile-for-helper` and the running caplet
// `controller-for-helper`, pinned under the same name. A host can keep
// several faes, each with names of its own, and the setup scripts act on
// the one named, never on another.
import { q } from '@endo/errors';
import { readFaeName } from '../agent/config.js';
import type { Env } from './env.js';

export interface FaeNames {
  /** The guest's handle: the name the host mails this fae by. */
  readonly guest: string;
  /** The guest's powers, handed to the caplet. */
  readonly agent: string;
  /** The running caplet (its Fae exo), and its pin. */
  readonly controller: string;
}

const AGENT_PREFIX = 'profile-for-';
const CONTROLLER_PREFIX = 'controller-for-';

/** The longest name whose controller's name is still a pet name (128 characters at most). */
export const MAX_FAE_NAME_LENGTH = 128 - CONTROLLER_PREFIX.length;

export const faeNamesOf = (name: string): FaeNames =>
  harden({ guest: name, agent: `${AGENT_PREFIX}${name}`, controller: `${CONTROLLER_PREFIX}${name}` });
harden(faeNamesOf);

/** The names of the fae provisioned without FAE_NAME. */
export const DEFAULT_FAE_NAMES = faeNamesOf('fae');

/**
 * Special names in lowercase, of a host or guest, on any generation:
 * pet names, but a fae called `host` or `self` would read as the special
 * one in every command and message that names it.
 */
const SPECIAL_WORDS: readonly string[] = harden([
  'agent', 'self', 'host', 'mail', 'main', 'node', 'endo', 'nets', 'pins', 'info', 'none', 'apps', 'registry', 'planes',
]);

/** Why `name` cannot name a fae, or undefined when it can. */
const whyNot = (name: string, taken: readonly string[]): string | undefined => {
  if (name.length > MAX_FAE_NAME_LENGTH) {
    return `is ${name.length} characters long; at most ${MAX_FAE_NAME_LENGTH} leave room for ${q(`${CONTROLLER_PREFIX}${name}`)}`;
  }
  if (/^\d+$/.test(name)) return 'is all digits, which reads as the number of a message';
  if (SPECIAL_WORDS.includes(name)) return `reads as the special name ${q(name.toUpperCase())} (${q(`@${name}`)} on the newer daemons)`;
  const prefix = [AGENT_PREFIX, CONTROLLER_PREFIX].find(start => name.startsWith(start));
  if (prefix !== undefined) return `begins with ${q(prefix)}, as the names of a fae's powers and controller do`;
  if (taken.includes(name)) return 'is the name of a tool the setup scripts make';
  return undefined;
};

/**
 * The names of the fae FAE_NAME names, checked before anything is made:
 * a pet name on every generation (src/agent/config.ts), which leaves room
 * for the names made from it and clashes neither with a special name nor
 * with `taken`, the names of the tools the scripts make.
 */
export const readFaeNames = (env: Env, taken: readonly string[] = []): FaeNames => {
  const name = readFaeName(env);
  const problem = whyNot(name, taken);
  if (problem !== undefined) throw Error(`FAE_NAME ${q(name)} ${problem}; choose another name for this fae`);
  return faeNamesOf(name);
};
harden(readFaeNames);

// What a setup script must know about the host before it changes anything:
// which guest API generation it speaks (so which special names to use),
// which names are bound, and where the controller of the fae it provisions
// and that controller's pin point.
// Everything is read up front so that a name the script needs and does not
// find stops it before it has created a thing (issue 11 §3: on the August
// daemon the old scripts made three tools and three workers, then failed
// on "PINS").
import { E } from '@endo/far';
import { q } from '@endo/errors';
import { type Dialect, type SpecialNames, detectDialect, formulaIdOf, specialNames } from '../daemon/dialect.js';
import type { HostRef } from './provisioning.js';
import { DEFAULT_FAE_NAMES, type FaeNames } from './fae-names.js';

export interface HostState {
  readonly dialect: Dialect;
  /** The special names of the host's generation (`MAIN` or `@main`, …). */
  readonly names: SpecialNames;
  /** The host's top-level names, special and pet, when it was inspected. */
  readonly bound: ReadonlySet<string>;
  /** The names of the fae the script is about (FAE_NAME). */
  readonly fae: FaeNames;
  /** The formula that fae's controller name (`controller-for-fae`) names, if it is bound. */
  readonly controllerId: string | undefined;
  /** The formula pinned under that controller name, if any. */
  readonly pinnedId: string | undefined;
}

const describeProblem = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Reads the host's dialect and names, and checks that the specials the
 * scripts use (its main worker, its pins directory and least authority)
 * are there. Throws a clear error, having changed nothing, when they are not.
 * `fae` names the fae whose controller and pin are read.
 */
export const inspectHost = async (host: HostRef, fae: FaeNames = DEFAULT_FAE_NAMES): Promise<HostState> => {
  // Independent reads: they go out together.
  const reads = Promise.all([
    E(host).list() as Promise<readonly string[]>,
    E(host).identify(fae.controller) as Promise<string | undefined>,
  ]).catch((error: unknown) => {
    throw Error(
      `Cannot read the names of the host (${describeProblem(error)}); run the script with the host's powers, as in "endo run --UNCONFINED dist/setup.js --powers AGENT"; nothing was created`,
    );
  });
  const [dialect, [listed, controllerId]] = await Promise.all([detectDialect(host), reads]);
  const names = specialNames(dialect);
  const bound = new Set(listed);
  const missing = [names.main, names.pins, names.none].filter(name => !bound.has(name));
  if (missing.length > 0) {
    throw Error(
      `This Endo daemon speaks the ${dialect} dialect but its host has no ${missing.map(name => q(name)).join(', ')} (it has ${q(listed.filter(name => /^(@|[A-Z])/.test(name)))}); nothing was created`,
    );
  }
  // Only now that the pins directory is known to exist: a path through a
  // missing name would be an error in the daemon's log.
  const pinnedId = (await E(host).identify(names.pins, fae.controller)) as string | undefined;
  const normalise = (id: string | undefined) => (id === undefined ? undefined : (formulaIdOf(id) ?? id));
  return harden({
    dialect,
    names,
    bound,
    fae,
    controllerId: normalise(controllerId),
    pinnedId: normalise(pinnedId),
  });
};
harden(inspectHost);

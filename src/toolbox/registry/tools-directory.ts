// fae keeps its tools under tools/. The daemon's makeDirectory replaces an
// existing name, which would drop every adopted tool, so the directory is
// made only when it is missing, or when the name holds plain data (a value
// stored over it). A tools/ the daemon cannot list just now (slow,
// restarting, refusing) is tried again and, if it stays unreadable, left
// as it is: the registry lists it again each step until it answers. A new
// directory is checked, and made again if it is gone already: the
// upstream daemon can collect a new directory's store if a collection
// pass lands while the directory is being made (new-directory.ts).
import { E } from '@endo/far';
import type { GuestPowers, Ref } from '../../daemon/endo-types.js';
import { TOOLS_DIRECTORY } from '../discovered-tools.js';
import type { Logger } from '../../logging/log.js';
import { makeUsableDirectory } from '../../daemon/new-directory.js';
import { DEFAULT_RETRY_MS, retrying } from '../../daemon/backoff.js';
import { plainDataAt } from '../../daemon/plain-data.js';

/** Tries of each call before fae goes on without judging. */
const ATTEMPTS = 3;

/** Resolves to true when this start created tools/ (fae's first start). */
export const provideToolsDirectory = async (powers: Ref<GuestPowers>, logger: Logger) => {
  // One step after the other on purpose: listing a missing name would
  // leave an "Unknown pet name" error in the daemon's log on every first start.
  const exists = await retrying(ATTEMPTS, DEFAULT_RETRY_MS, () => E(powers).has(TOOLS_DIRECTORY));
  if (exists) {
    const refusal = await retrying(ATTEMPTS, DEFAULT_RETRY_MS, () => E(powers).list(TOOLS_DIRECTORY)).then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
    if (refusal === undefined) return false;
    if ((await plainDataAt(powers, TOOLS_DIRECTORY)) === undefined) {
      // It may hold every adopted tool: never replaced on doubt.
      logger.warn('tools-directory-unreadable', { error: refusal.error });
      return false;
    }
    logger.warn('tools-directory-replaced', { reason: 'tools holds a value, not a directory' });
  }
  await makeUsableDirectory(powers, logger, TOOLS_DIRECTORY, () => E(powers).list(TOOLS_DIRECTORY));
  return !exists;
};
harden(provideToolsDirectory);

// Making a directory the daemon may take back at once. The February daemon
// does not protect a new directory between its formulation and the binding
// of its name: a collection pass, which any concurrent guest call ends
// with, can take it and leave a name that points at nothing (seen on the
// real daemon). So the directory is made anew when its first use fails, at
// most three times; the common case costs no extra call.
import { E } from '@endo/far';
import type { GuestPowers, Ref } from './endo-types.js';
import type { Logger } from '../logging/log.js';

const ATTEMPTS = 3;

/**
 * Makes the directory at `path` (replacing what the name held) and runs
 * `use` on it; a failure of either makes it again. Rejects with the last
 * failure after three attempts.
 */
export const makeUsableDirectory = async (
  powers: Ref<GuestPowers>,
  logger: Logger,
  path: readonly string[],
  use: () => Promise<unknown>,
) => {
  for (let attempt = 1; ; attempt += 1) {
    // Sequential on purpose: each attempt follows the failure of the last.
    // eslint-disable-next-line no-await-in-loop
    const failure = await E(powers)
      .makeDirectory(harden([...path]))
      .then(use)
      .then(
        () => undefined,
        (error: unknown) => ({ error }),
      );
    if (failure === undefined) return;
    logger.warn('directory-retried', { name: path.join('/'), attempt, error: failure.error });
    if (attempt >= ATTEMPTS) throw failure.error;
  }
};
harden(makeUsableDirectory);

// fae keeps its tools under tools/. The daemon's makeDirectory replaces an
// existing name, which would drop every adopted tool, so the directory is
// made only when it is missing — or when the name points at something that
// cannot be listed: the upstream daemon can collect a new directory's store
// if a collection pass lands while the directory is being made, leaving a
// dangling name that would otherwise break every turn for good; a new one
// is checked, and made again if it is gone already (new-directory.ts).
import { E } from '@endo/far';
import type { GuestPowers, Ref } from '../daemon/endo-types.js';
import { TOOLS_DIRECTORY } from './tools.js';
import type { Logger } from '../logging/log.js';
import { makeUsableDirectory } from '../daemon/new-directory.js';

const isListable = (powers: Ref<GuestPowers>) =>
  E(powers)
    .list(TOOLS_DIRECTORY)
    .then(
      () => true,
      () => false,
    );

/** Resolves to true when this start created tools/ (fae's first start). */
export const provideToolsDirectory = async (powers: Ref<GuestPowers>, logger: Logger) => {
  // One step after the other on purpose: listing a missing name would
  // leave an "Unknown pet name" error in the daemon's log on every first start.
  const exists = await E(powers).has(TOOLS_DIRECTORY);
  if (exists && (await isListable(powers))) {
    return false;
  }
  if (exists) {
    logger.warn('tools-directory-replaced', { reason: 'tools/ could not be listed' });
  }
  await makeUsableDirectory(powers, logger, [TOOLS_DIRECTORY], () => E(powers).list(TOOLS_DIRECTORY));
  return !exists;
};
harden(provideToolsDirectory);

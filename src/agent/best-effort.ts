// Startup calls whose failure must not stop fae from reading its mail
// (announcing itself, tidying its directory): a failure is logged and a
// fallback used, so a daemon that refuses one call still gets a working
// agent. Only following the mail itself is essential.
import type { Logger } from '../logging/log.js';

export const bestEffort = async <T>(
  logger: Logger,
  step: string,
  work: () => Promise<T>,
  fallback: T,
): Promise<T> => {
  try {
    return await work();
  } catch (error) {
    logger.warn('startup-step-failed', { step, error });
    return fallback;
  }
};
harden(bestEffort);

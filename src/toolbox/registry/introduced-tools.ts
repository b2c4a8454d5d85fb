// Tools a host introduces at the top of fae's directory (setup-with-tools
// does this) are moved under tools/ at startup. Each top-level entry that
// is an object (not plain data) is asked for its method names (not
// duck-typed by calling schema() on everything, upstream F12), every probe
// is bounded in time, and all entries are examined at once.
import { E } from '@endo/far';
import { q } from '@endo/errors';
import type { FaeToolMethods, GuestPowers, Ref } from '../../daemon/endo-types.js';
import { checkToolSchema } from '../tool-schema.js';
import { TOOLS_DIRECTORY } from '../discovered-tools.js';
import { withTimeout } from '../../timeout.js';
import type { Logger } from '../../logging/log.js';
import { isPetName } from '../../daemon/pet-name.js';
import { mayBeRemote } from '../../daemon/plain-data.js';

const FAE_TOOL_METHODS = ['schema', 'execute', 'help'];

export interface IntroducedToolsOptions {
  readonly probeTimeoutMs: number;
  readonly logger: Logger;
}

/** Resolves to the pet names that were moved into tools/. */
export const moveIntroducedTools = async (
  powers: Ref<GuestPowers>,
  { probeTimeoutMs, logger }: IntroducedToolsOptions,
): Promise<readonly string[]> => {
  const names = await E(powers).list();
  const candidates = names.filter(name => isPetName(name) && name !== TOOLS_DIRECTORY);
  const bounded = <T>(promise: Promise<T>, name: string) =>
    withTimeout(promise, probeTimeoutMs, () => `${q(name)} did not answer within ${probeTimeoutMs} ms`);
  const moved = await Promise.all(
    candidates.map(async name => {
      let value: unknown;
      let methods: readonly (string | symbol)[];
      try {
        value = await bounded(E(powers).lookup(name), name);
        // Plain data (fae's settings, a value the host stored) has no
        // methods to ask for: asked, the daemon's worker logs the error.
        if (!mayBeRemote(value)) return undefined;
        methods = await bounded(E(value as FaeToolMethods).__getMethodNames__(), name);
      } catch {
        return undefined; // unreadable now, or an object that does not describe itself
      }
      if (!FAE_TOOL_METHODS.every(method => methods.includes(method))) {
        return undefined;
      }
      try {
        const check = checkToolSchema(await bounded(E(value as FaeToolMethods).schema(), name));
        if (!check.ok) {
          logger.warn('tool-skipped', { tool: name, problem: check.problem });
          return undefined;
        }
        await E(powers).move([name], [TOOLS_DIRECTORY, name]);
        logger.event('tool-installed', { tool: name, as: check.schema.function.name });
        return name;
      } catch (error) {
        logger.warn('tool-skipped', { tool: name, error });
        return undefined;
      }
    }),
  );
  return harden(moved.filter((name): name is string => name !== undefined));
};
harden(moveIntroducedTools);

// Tool caplets in the host's inventory: each made once, under its pet name,
// in the host's main worker with no powers.
import { E } from '@endo/far';
import { type HostRef, type ToolCaplet, builtModuleUrl } from './provisioning.js';
import { type HostState, inspectHost } from './host-state.js';

/**
 * Creates each tool caplet under its pet name unless that name is already
 * bound. `state` is the host as inspected before anything was created (a
 * script that makes more than tools inspects once, first); without it the
 * host is inspected here. Returns one report line per tool.
 */
export const provideToolCaplets = async (
  host: HostRef,
  tools: readonly ToolCaplet[],
  env: Readonly<Record<string, string>> = {},
  state?: HostState,
): Promise<string[]> => {
  // Missing builds are found before the host is asked anything.
  const specifiers = tools.map(tool => builtModuleUrl(tool.module));
  const { names, bound } = state ?? (await inspectHost(host));
  // Independent tools: every creation goes out at once.
  return Promise.all(
    tools.map(async ({ petName }, i) => {
      if (bound.has(petName)) return `${petName}: already present, left as it is`;
      await E(host).makeUnconfined(names.main, specifiers[i], {
        powersName: names.none,
        resultName: petName,
        env,
      });
      return `${petName}: created`;
    }),
  );
};
harden(provideToolCaplets);

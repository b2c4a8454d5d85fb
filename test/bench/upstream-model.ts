// What upstream fae gets when it imports lal's providers in the bench (see
// upstream-hooks.ts): a createProvider that answers with the model the
// bench set, the same zero-latency script our fae is benched with.
import type { Provider } from '../../providers/types.js';

let current: Provider | undefined;

/** The model the next upstream fae started gets. */
export const useModel = (provider: Provider) => {
  current = provider;
};

export const createProvider = (_env: unknown): Provider => {
  if (current === undefined) throw Error('The bench set no model for upstream fae');
  return current;
};

// The fae caplet. The Endo daemon imports this module in a worker that is
// already locked down and calls make() on first use and again after every
// restart: read the settings, start the agent, which builds its provider
// (and, set up without an LLM, asks its host for one with a form).
import { createProvider } from './providers/index.js';
import { startFae } from './src/agent/fae.js';
import type { CapletContext, GuestPowers, Ref } from './src/daemon/endo-types.js';

export const make = (
  powers: Ref<GuestPowers>,
  context: Ref<CapletContext>,
  { env = {} }: { readonly env?: Readonly<Record<string, string>> } = {},
) => startFae(powers, context, { env, makeProvider: (settings, log) => createProvider(settings, { log }) });
harden(make);

// The fae caplet. The Endo daemon imports this module in a worker that is
// already locked down and calls make() on first use and again after every
// restart: read the LLM settings, build the provider, start the agent.
import { createProvider } from './providers/index.js';
import { startFae } from './src/agent/fae.js';
import type { CapletContext, GuestPowers, Ref } from './src/daemon/endo-types.js';
import { logPrefixFor, makeLogger } from './src/logging/log.js';
import { readFaeName } from './src/agent/config.js';
import { makeEnvRedactor } from './src/logging/redact.js';

export const make = (
  powers: Ref<GuestPowers>,
  context: Ref<CapletContext>,
  { env = {} }: { readonly env?: Readonly<Record<string, string>> } = {},
) => {
  // What the provider has to tell (a server that cannot stream) goes to
  // the log as fae's own warnings do.
  const logger = makeLogger({ redact: makeEnvRedactor(env), prefix: logPrefixFor(readFaeName(env)) });
  const provider = createProvider(env, { log: (event, fields) => logger.warn(event, fields) });
  return startFae(powers, context, { env, provider });
};
harden(make);

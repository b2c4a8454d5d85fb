// What the provider tests share: a tool schema, and a loopback server of
// one kind with a provider pointed at it.
import { createProvider, type ToolSchema } from '../../providers/index.js';
import { startLlmServer, type LlmKind } from './llm-server.js';

export const GREET_TOOL: ToolSchema = harden({
  type: 'function',
  function: {
    name: 'greet',
    description: 'Greets someone',
    parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  },
});

type Teardown = { teardown(fn: () => Promise<void>): void };

/**
 * A server of `kind` (closed when the test ends) and a provider for it,
 * with `env` on top of LAL_HOST; pass `withToken` false for a server that
 * needs no key (a local Ollama).
 */
export const startProviderServer = async (
  t: Teardown,
  kind: LlmKind,
  env: Record<string, string>,
  { withToken = true } = {},
) => {
  const server = await startLlmServer(kind);
  t.teardown(() => server.close());
  const base = withToken ? server.env() : { LAL_HOST: server.url };
  return { server, provider: createProvider({ ...base, ...env }) };
};

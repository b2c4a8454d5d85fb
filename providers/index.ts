// providers/: the chat contract (types.ts) and its adapters over the
// official SDKs. It imports only src/logging of fae's.
//
// The provider factory: one Provider for the LAL_* settings in `env`. The
// agent, setup scripts and tests import from here only.
import { makeAnthropicProvider, makeAnthropicProviderFromConfig } from './anthropic.js';
import { readProviderConfig, type Env } from './config.js';
import { makeOllamaProvider, makeOllamaProviderFromConfig } from './ollama.js';
import { makeLlamaCppProvider, makeOpenAIProviderFromConfig } from './openai-compatible.js';
import type { ProviderOptions } from './transport.js';
import type { Provider } from './types.js';

/**
 * The provider LAL_PROVIDER names or, failing that, the one LAL_HOST points
 * at (see selectProviderKind). Configuration errors throw here, before any
 * request; no network is touched until chat() is called.
 */
export const createProvider = (env: Env, options?: ProviderOptions): Provider => {
  const config = readProviderConfig(env);
  switch (config.kind) {
    case 'anthropic':
      return makeAnthropicProviderFromConfig(config, env, options);
    case 'openai':
      return makeOpenAIProviderFromConfig(config, env, options);
    default:
      return makeOllamaProviderFromConfig(config, env, options);
  }
};
harden(createProvider);

export { makeAnthropicProvider, makeLlamaCppProvider, makeOllamaProvider };
export {
  readProviderConfig,
  describeProviderConfig,
  selectProviderKind,
  type Env,
  type ProviderConfig,
} from './config.js';
export { truncateMessages } from './truncate.js';
export { ContextOverflowError, LlmStallError } from './errors.js';
export type { ProviderLog, ProviderOptions } from './transport.js';
export type * from './types.js';

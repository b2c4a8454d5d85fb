// Before the first message: is the LLM there at all? One cheap GET that
// every server of the configured kind answers (Ollama lists its models, an
// OpenAI-compatible server and Anthropic list theirs), bounded to a few
// seconds. Any HTTP answer means the server is reachable, except 401/403,
// which means the token is wrong or missing. The token travels only to the
// server fae itself would send it to, and is never part of a result text.
import type { ProviderConfig } from '../../providers/config.js';
import { DEFAULT_HOST } from '../../providers/config.js';
import { redactUrl } from '../logging/redact.js';

export const DEFAULT_CHECK_TIMEOUT_MS = 5_000;

export type Reachability =
  | { readonly ok: true; readonly warning?: string }
  | {
      readonly ok: false;
      readonly problem: 'unreachable' | 'refused' | 'not-ollama';
      readonly paragraph: string;
    };

export interface ReachabilityOptions {
  readonly timeoutMs?: number;
  /** Injected for tests; the global fetch by default. */
  readonly fetch?: typeof globalThis.fetch;
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** The request that costs least for each kind of server. */
const probeFor = (config: ProviderConfig) => {
  const base = trimSlash(config.host);
  const headers: Record<string, string> = {};
  const token = config.authToken;
  switch (config.kind) {
    case 'anthropic':
      if (token !== undefined) headers['x-api-key'] = token;
      headers['anthropic-version'] = '2023-06-01';
      return { url: `${base}/v1/models`, headers };
    case 'openai':
      if (token !== undefined) headers.authorization = `Bearer ${token}`;
      return { url: `${base}/models`, headers };
    default:
      if (token !== undefined) headers.authorization = `Bearer ${token}`;
      return { url: `${base}/api/tags`, headers };
  }
};

const KIND_NAMES = harden({
  ollama: 'Ollama',
  openai: 'OpenAI-compatible',
  anthropic: 'Anthropic',
});

/** Why fetch failed, in words: "connection refused", "no answer within 5 s". */
const describeFailure = (error: unknown, timeoutMs: number): string => {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `no answer within ${Math.round(timeoutMs / 100) / 10} s`;
  }
  const cause = error instanceof Error ? (error as { cause?: unknown }).cause : undefined;
  const code = (cause as { code?: unknown } | undefined)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused (nothing is listening there)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name does not resolve';
    case 'ECONNRESET':
      return 'the connection was reset';
    default:
      break;
  }
  if (cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : String(error);
};

/** How to point fae at an LLM: the second half of every failure paragraph. */
export const LLM_CHOICE_GUIDANCE =
  `To use another LLM, set LAL_HOST to its base URL: ${DEFAULT_HOST} for Ollama ` +
  '(start it with "ollama serve" and fetch a model with "ollama pull qwen3"), a URL ending in /v1 ' +
  'for an OpenAI-compatible server (llama.cpp, vLLM, LM Studio, OpenAI itself), or ' +
  'https://api.anthropic.com for Anthropic; set LAL_MODEL to the model name, LAL_AUTH_TOKEN to the ' +
  'API key if the server needs one (Anthropic always does), and LAL_PROVIDER to ollama, openai or ' +
  'anthropic if the kind cannot be told from LAL_HOST. For example: ' +
  'LAL_HOST=http://localhost:8080/v1 LAL_MODEL=my-model npm start';

const whatWasTried = (config: ProviderConfig, url: string) =>
  `(provider ${KIND_NAMES[config.kind]}, model "${config.model}"; tried GET ${redactUrl(url)})`;

/**
 * Asks the configured server for its model list. Never throws; never
 * mentions the token, nor LAL_HOST's user info or query values.
 */
export const checkLlmReachable = async (
  config: ProviderConfig,
  { timeoutMs = DEFAULT_CHECK_TIMEOUT_MS, fetch = globalThis.fetch }: ReachabilityOptions = {},
): Promise<Reachability> => {
  const { url, headers } = probeFor(config);
  // LAL_HOST may carry a password or a key in its query: never shown.
  const host = redactUrl(config.host);
  let response: Response;
  try {
    response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    return harden({
      ok: false,
      problem: 'unreachable',
      paragraph:
        `fae cannot reach the LLM at ${host} ${whatWasTried(config, url)}: ` +
        // fetch may quote the URL it refused, user info and all.
        `${describeFailure(error, timeoutMs).split(url).join(redactUrl(url))}. ${LLM_CHOICE_GUIDANCE}`,
    });
  }
  if (response.status === 401 || response.status === 403) {
    await response.body?.cancel().catch(() => {});
    const token = config.authToken === undefined ? 'no LAL_AUTH_TOKEN is set' : 'LAL_AUTH_TOKEN was not accepted';
    return harden({
      ok: false,
      problem: 'refused',
      paragraph:
        `The LLM at ${host} ${whatWasTried(config, url)} answered HTTP ${response.status}: ` +
        `${token}. Set LAL_AUTH_TOKEN to a valid API key for that server. ${LLM_CHOICE_GUIDANCE}`,
    });
  }
  if (config.kind === 'ollama' && response.status === 404) {
    // Every Ollama lists its models; a 404 means something else answers here.
    await response.body?.cancel().catch(() => {});
    return harden({
      ok: false,
      problem: 'not-ollama',
      paragraph:
        `The server at ${host} ${whatWasTried(config, url)} answered HTTP 404: it is not an Ollama server. ` +
        'If it is OpenAI-compatible (llama.cpp, vLLM, LM Studio), set LAL_HOST to its URL ending in /v1, ' +
        `or set LAL_PROVIDER=openai. ${LLM_CHOICE_GUIDANCE}`,
    });
  }
  if (config.kind === 'ollama' && response.ok) {
    return harden({ ok: true, warning: await missingOllamaModel(response, config.model) });
  }
  await response.body?.cancel().catch(() => {});
  return harden({ ok: true });
};
harden(checkLlmReachable);

/** Ollama answers with its local models: say so when the chosen one is not there. */
const missingOllamaModel = async (response: Response, model: string): Promise<string | undefined> => {
  let names: string[];
  try {
    const body = (await response.json()) as { models?: { name?: unknown; model?: unknown }[] };
    names = (body.models ?? []).flatMap(entry =>
      [entry.name, entry.model].filter((name): name is string => typeof name === 'string'),
    );
  } catch {
    return undefined;
  }
  const wanted = model.includes(':') ? [model] : [model, `${model}:latest`];
  if (names.some(name => wanted.includes(name))) return undefined;
  return `Ollama has no model "${model}" yet: run "ollama pull ${model}", or choose one it has with LAL_MODEL.`;
};

// How many tokens the server can read at once, where it says: llama.cpp's
// server in its model list (`/v1/models`, `meta.n_ctx`, the context of a
// slot), vLLM there too (`max_model_len`), Ollama in the model's details
// (`POST /api/show`, `model_info["<arch>.context_length"]`). Asked once per
// provider; a server that does not say (or cannot be asked) leaves fae's
// own budget, FAE_CONTEXT_TOKENS, to hold alone.
import { isRecord } from '../src/is-record.js';

/** What an OpenAI-compatible server's model list says of the model. */
export interface ModelListFacts {
  readonly contextTokens: number | undefined;
  /** It is llama.cpp's server, which reports its progress reading a prompt when asked (return_progress). */
  readonly llamaCpp: boolean;
}

const positive = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;

/** The facts of `model` (or of the one model a server serves, whatever it is called) in a `/v1/models` answer. */
export const readModelList = (answer: unknown, model: string): ModelListFacts => {
  const data = isRecord(answer) && Array.isArray(answer.data) ? answer.data.filter(isRecord) : [];
  const entry = data.find(item => item.id === model) ?? (data.length === 1 ? data[0] : undefined);
  if (entry === undefined) return harden({ contextTokens: undefined, llamaCpp: false });
  const meta = isRecord(entry.meta) ? entry.meta : {};
  return harden({
    contextTokens: positive(meta.n_ctx) ?? positive(entry.max_model_len) ?? positive(entry.context_length),
    llamaCpp: entry.owned_by === 'llamacpp',
  });
};
harden(readModelList);

/** The context length an Ollama `/api/show` answer gives the model (`<arch>.context_length`). */
export const readOllamaShow = (answer: unknown): number | undefined => {
  const info = isRecord(answer) && isRecord(answer.model_info) ? answer.model_info : {};
  const key = Object.keys(info).find(name => name.endsWith('.context_length'));
  return key === undefined ? undefined : positive(info[key]);
};
harden(readOllamaShow);

/**
 * Asks once, whoever asks first; a failed question is asked again next
 * time (the server may have been starting).
 */
export const askOnce = <T>(ask: () => Promise<T>, fallback: T) => {
  let answer: Promise<T> | undefined;
  return () => {
    if (answer === undefined) {
      const asking = ask();
      answer = asking.catch(() => {
        answer = undefined;
        return fallback;
      });
    }
    return answer;
  };
};
harden(askOnce);

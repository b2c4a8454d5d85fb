// The provider fae talks to, changeable while it runs: the host's answer
// to the settings form replaces it at once, without a restart. Until fae
// has one (it was set up without an LLM and the host has not answered
// yet), a model call waits for it, or for its own cancellation.
import { makePromiseKit } from '@endo/promise-kit';
import type { ChatMessage, ChatOptions, Provider, ToolSchema } from '../../../providers/types.js';

export interface ProviderSwitch extends Provider {
  /** Whether fae has a provider yet. */
  readonly isSet: () => boolean;
  /** From the next model call on, this one answers. */
  readonly use: (provider: Provider) => void;
}

/** Told to the caller whose call waited for settings and was cancelled. */
const cancelledWhileWaiting = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
  });

export const makeProviderSwitch = (initial: Provider | undefined): ProviderSwitch => {
  let current = initial;
  const first = makePromiseKit<Provider>();
  if (initial !== undefined) first.resolve(initial);

  const chat = async (messages: readonly ChatMessage[], tools: readonly ToolSchema[], options?: ChatOptions) => {
    const waiting = current === undefined ? first.promise : undefined;
    const provider =
      current ?? (await (options?.signal ? Promise.race([waiting!, cancelledWhileWaiting(options.signal)]) : waiting!));
    return provider.chat(messages, tools, options);
  };

  // Getters: kind and model read the current provider each time.
  return harden({
    get kind() {
      return current?.kind ?? 'openai';
    },
    get model() {
      return current?.model ?? '(not set up yet)';
    },
    chat,
    // The current provider's server's word on its context (asked once per provider).
    contextWindow: async () => current?.contextWindow?.(),
    isSet: () => current !== undefined,
    use: (provider: Provider) => {
      current = provider;
      first.resolve(provider);
    },
  });
};
harden(makeProviderSwitch);

// The one chat contract every LLM adapter implements. The agent depends on
// these types only; each adapter converts them to and from its own wire format.

/** A tool call as the model asked for it (OpenAI function-call shape). */
export interface ToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    /** The arguments as the model wrote them: a JSON object text. */
    readonly arguments: string;
  };
}

export type ChatRole = 'system' | 'user' | 'assistant' | 'tool';

export interface ChatMessage {
  readonly role: ChatRole;
  readonly content: string;
  /** Present on assistant messages that call tools. */
  readonly tool_calls?: readonly ToolCall[];
  /** Present on tool messages: the id of the call this result answers. */
  readonly tool_call_id?: string;
  /** Present on tool messages: the name of the tool that produced it. */
  readonly name?: string;
}

/** A JSON Schema object describing a tool's parameters. */
export type JsonSchema = { readonly [key: string]: unknown };

/** A tool as offered to the model (OpenAI function format). */
export interface ToolSchema {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description: string;
    readonly parameters: JsonSchema;
  };
}

/** Token counts, when the API reports them. */
export interface Usage {
  /** Every input token of the request, those served from a prompt cache included. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /**
   * Of inputTokens, those read from the provider's prompt cache (billed at
   * a discount), when the API says: Anthropic's cache_read_input_tokens,
   * OpenAI's prompt_tokens_details.cached_tokens. Ollama reports none.
   */
  readonly cachedInputTokens?: number;
  /**
   * Of inputTokens, those written to the prompt cache by this request
   * (Anthropic's cache_creation_input_tokens, billed at a premium), when
   * the API says.
   */
  readonly cacheWriteInputTokens?: number;
}

/**
 * Why the model stopped: it was done, it called tools, or it hit
 * LAL_MAX_TOKENS (so the reply is cut off), or anything else.
 */
export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'other';

export interface ChatResult {
  /** Always role 'assistant'. */
  readonly message: ChatMessage;
  readonly usage?: Usage;
  /** Present when the API said why it stopped. */
  readonly stopReason?: StopReason;
}

/**
 * What a caller that sends a conversation tells the provider, so that its
 * prompt cache serves the next request of that conversation: which
 * conversation this is, and how much of this request the next one will
 * repeat. Plain data; each adapter asks for caching as its API wants
 * (Anthropic: cache_control breakpoints; OpenAI-compatible servers:
 * prompt_cache_key and llama.cpp's cache_prompt). Without it, nothing is
 * asked: a request that is not repeated should not pay for a cache write.
 */
export interface CacheHints {
  /**
   * Names the conversation: the same for all its requests, also after a
   * restart, and different for every other. Opaque (a hash, which reveals
   * no correspondent) and short, so it may be sent as it is.
   */
  readonly key: string;
  /**
   * How many of the request's leading messages the conversation's next
   * request will start with, unchanged, unless a compaction or a change of
   * tools or settings comes between: the newest stable point, where
   * Anthropic's last breakpoint goes. 0 when nothing past the tools is
   * known to stay.
   */
  readonly stableMessages: number;
}

/** What one chat() call may be given besides the request itself. */
export interface ChatOptions {
  /**
   * Aborting it stops the call: its HTTP connection is closed (a stream
   * too, however far it got), a retry's wait ends, and chat() rejects with
   * the signal's reason. Never harden a signal or a bag that holds one: a
   * frozen AbortSignal cannot be aborted (abort() throws), so the bag is
   * passed as it is.
   */
  readonly signal?: AbortSignal;
  /**
   * Called with each piece of the assistant's text as it arrives, in order,
   * before chat() resolves, so a caller can show the answer while it comes;
   * the pieces joined are the result's content. Never called with the
   * text of tool-call arguments (nor with a model's hidden reasoning).
   * When the server cannot stream, it is called once, with the whole text.
   * It is called synchronously and should return quickly; what it throws
   * ends the call (its connection is closed) and chat() rejects with that.
   */
  readonly onText?: (delta: string) => void;
  /** The request belongs to a conversation whose prefix repeats (CacheHints). */
  readonly cache?: CacheHints;
  /**
   * Told, where the server says so (llama.cpp), how far it has read the
   * prompt before its answer begins: tokens processed of the total.
   */
  readonly onProgress?: (read: PromptProgress) => void;
}

/** How far a server has read a prompt. */
export interface PromptProgress {
  readonly processed: number;
  readonly total: number;
}

export interface Provider {
  /** Which adapter this is: 'anthropic', 'openai' or 'ollama'. */
  readonly kind: ProviderKind;
  readonly model: string;
  chat(
    messages: readonly ChatMessage[],
    tools: readonly ToolSchema[],
    options?: ChatOptions,
  ): Promise<ChatResult>;
  /**
   * How many tokens the server can read at once, where it says (asked
   * once; server-window.ts); undefined where it does not.
   */
  contextWindow?(): Promise<number | undefined>;
}

export type ProviderKind = 'anthropic' | 'openai' | 'ollama';

/** The fetch each adapter's SDK is built with (retrying-fetch.ts, answer-check.ts). */
export type Fetch = typeof fetch;

// One turn of the ReAct loop: ask the model, run the tool calls it makes,
// feed the results back, and repeat until it answers without calling a
// tool, the iteration cap is reached, or the agent is cancelled.
import type { ChatMessage, ChatOptions, Provider, ToolCall, ToolSchema, Usage } from '../../../providers/types.js';
import type { DiscoveredTools } from '../../toolbox/discovered-tools.js';
import type { TurnScope } from '../../toolbox/built-ins/turn-scope.js';
import { executeTool } from '../../toolbox/tools.js';
import { namedCall } from '../../toolbox/tool-budget.js';
import { argumentCheckOf } from '../../toolbox/built-ins/built-in-tool.js';
import { OUTSIDE_TURNS } from '../../toolbox/built-ins/turn-scope.js';
import { extractToolCallsFromContent, stripThinkBlocks } from '../../toolbox/extract-tool-calls.js';
import type { MakeCallId } from '../../toolbox/extract-tool-calls.js';
import { parseToolArguments } from '../../toolbox/tool-arguments.js';
import { errorAsText, resultAsText } from '../../toolbox/result-text.js';
import { rejectionResult, rejectionText } from '../../toolbox/built-ins/rejection-text.js';
import { cutMiddle } from '../../tool-kit/cut-middle.js';
import type { Logger } from '../../logging/log.js';
import type { Cancellation } from './cancellation.js';

export interface TurnLimits {
  readonly maxIterations: number;
  readonly toolTimeoutMs: number;
  readonly parallelTools: boolean;
  /** Characters one tool result may put in the transcript (none when omitted). */
  readonly maxToolResultChars?: number;
}

export interface TurnDependencies {
  readonly provider: Provider;
  /** Fresh tools, for after a round of tool calls changed what exists. */
  readonly discover: () => Promise<DiscoveredTools>;
  readonly limits: TurnLimits;
  /** When the agent is cancelled, the turn stops. */
  readonly cancelled: Cancellation;
  readonly makeCallId: MakeCallId;
  readonly logger: Logger;
  /**
   * Where the turn adds up what its model calls spent (a fresh record by
   * default); the caller's own, so that what calls before a failure spent
   * still counts when runTurn rejects.
   */
  readonly usage?: TurnUsage;
  /** For log lines: which message this turn answers. */
  readonly messageNumber?: bigint;
  /** What the turn tells the built-ins it calls (built-in-turn-tools.ts); none outside a turn. */
  readonly scope?: TurnScope;
  /**
   * Asked before each tool call whether it may run (the host's approval,
   * approvals.ts); `signal` ends the wait when the turn is cancelled. The
   * wait does not count against the tool's timeout. A call that may not
   * run gets `result` as its tool result. Every call runs when omitted.
   */
  readonly approve?: (
    name: string,
    args: Readonly<Record<string, unknown>>,
    tools: DiscoveredTools,
    signal: AbortSignal,
  ) => Promise<
    | {
        readonly run: true;
        /** The call waits for the host itself: this much longer than the tool's timeout; `after` is told how it ended. */
        readonly waitsMs?: number;
        readonly after?: (error?: unknown) => void;
      }
    | { readonly run: false; readonly result: string }
  >;
  /** Told of each tool call as it starts (fae's events, progress). */
  readonly onToolCall?: (tool: string) => void;
  /** Told as each model call begins. */
  readonly onModelCall?: () => void;
  /**
   * A model call was refused as too long for the server's context: true
   * when requests were made smaller, so that the call is worth one more
   * try (its request is made again, within the new bounds).
   */
  readonly narrowed?: (error: unknown) => boolean;
  /** Told how far the server has read the prompt, where it says (llama.cpp). */
  readonly onProgress?: ChatOptions['onProgress'];
  /** Told of the model's text as it streams in (providers that stream). */
  readonly onText?: (delta: string) => void;
  /**
   * What each model call sends, given the turn so far: the conversation's
   * window within its budget (src/conversations/). Default: the transcript.
   */
  readonly prepareRequest?: (
    transcript: readonly ChatMessage[],
    schemas: readonly ToolSchema[],
    options?: ChatOptions,
  ) => Promise<readonly ChatMessage[]>;
}

/** What a turn's model calls spent, as far as the provider reported it. */
export interface TurnUsage {
  /** Model calls that answered. */
  requests: number;
  /** Every input token, cached ones included. */
  inputTokens: number;
  /** Of inputTokens, read from the provider's prompt cache. */
  cachedInputTokens: number;
  /** Of inputTokens, written to the prompt cache. */
  cacheWriteInputTokens: number;
  outputTokens: number;
}

/** Nothing spent yet. */
export const noUsage = (): TurnUsage => ({ requests: 0, inputTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 0 });

const addResponseUsage = (usage: TurnUsage, reported: Usage | undefined) => {
  usage.requests += 1;
  usage.inputTokens += reported?.inputTokens ?? 0;
  usage.cachedInputTokens += reported?.cachedInputTokens ?? 0;
  usage.cacheWriteInputTokens += reported?.cacheWriteInputTokens ?? 0;
  usage.outputTokens += reported?.outputTokens ?? 0;
};

export type TurnOutcome = { readonly iterations: number; readonly usage: TurnUsage } & (
  | {
      readonly kind: 'answered';
      readonly content: string;
      /** The model stopped at its output limit (LAL_MAX_TOKENS). */
      readonly cutOff: boolean;
    }
  | { readonly kind: 'limit' }
  | { readonly kind: 'cancelled' }
);

const CANCELLED: unique symbol = Symbol('cancelled');

/**
 * Runs `work` with a signal of its own, and gives it up when the turn is
 * cancelled first: the signal is aborted with the cancellation's reason,
 * so what `work` started stops (an HTTP request is closed, a tool is
 * told), and CANCELLED comes back at once. One controller per piece of
 * work, so nothing is left listening once it is over.
 */
const unlessCancelled = async <T>(
  cancelled: Cancellation,
  stop: Promise<typeof CANCELLED>,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T | typeof CANCELLED> => {
  if (cancelled.isCancelled()) return CANCELLED;
  const controller = new AbortController();
  const running = work(controller.signal);
  const first = await Promise.race([running, stop]);
  if (first === CANCELLED) {
    // What `work` does after the abort concerns no one any more.
    running.catch(() => {});
    controller.abort(await cancelled.promise);
  }
  return first;
};

/**
 * The assistant message as it is kept in the transcript: think blocks
 * stripped, embedded calls recovered, every call with a unique id and
 * `type: 'function'`.
 */
const normalizeAssistant = (
  message: ChatMessage,
  makeCallId: MakeCallId,
  usedIds: Set<string>,
): { content: string; calls: ToolCall[] } => {
  const raw = message.content ?? '';
  let content = stripThinkBlocks(raw);
  let calls: readonly ToolCall[] = message.tool_calls ?? [];
  if (calls.length === 0 && raw.includes('<tool_call>')) {
    const extracted = extractToolCallsFromContent(raw, makeCallId);
    content = extracted.content;
    calls = extracted.toolCalls;
  }
  const normalized = calls.map(call => {
    let id = call.id;
    if (typeof id !== 'string' || id === '' || usedIds.has(id)) {
      id = makeCallId();
    }
    usedIds.add(id);
    const args: unknown = call.function?.arguments;
    return {
      id,
      type: 'function' as const,
      function: {
        name: String(call.function?.name ?? ''),
        arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
      },
    };
  });
  return { content, calls: normalized };
};

type CallOutcome = { readonly stored: ToolCall; readonly result: ChatMessage };

const runToolCall = async (call: ToolCall, tools: DiscoveredTools, deps: TurnDependencies, signal: AbortSignal): Promise<CallOutcome> => {
  const { limits, logger, messageNumber } = deps;
  const name = call.function.name;
  const parsed = parseToolArguments(call.function.arguments);
  // What the transcript keeps: never unparsable text, which would make a
  // later request to a strict provider fail (upstream L3).
  const stored: ToolCall = parsed.ok
    ? call
    : { ...call, function: { name, arguments: '{}' } };
  const resultMessage = (content: string): ChatMessage => ({
    role: 'tool',
    // A huge result would travel in this and every later request.
    content: limits.maxToolResultChars === undefined ? content : cutMiddle(content, limits.maxToolResultChars),
    tool_call_id: call.id,
    name,
  });
  if (!parsed.ok) {
    logger.warn('tool-failed', { tool: name, message: messageNumber, error: parsed.error });
    return { stored, result: resultMessage(errorAsText(parsed.error)) };
  }
  // callTool stands for the tool it names: that tool is approved and run (tool-budget.ts).
  let target: ReturnType<typeof namedCall>;
  try {
    target = namedCall(name, parsed.args, tools);
  } catch (error) {
    logger.warn('tool-failed', { tool: name, message: messageNumber, error: rejectionText(error) });
    return { stored, result: resultMessage(rejectionResult(error)) };
  }
  return runNamedCall(target, { stored, resultMessage }, tools, deps, signal);
};

/** Runs the call the model meant (namedCall), once the host approves it where it must. */
const runNamedCall = async (
  { name, args }: { readonly name: string; readonly args: Readonly<Record<string, unknown>> },
  { stored, resultMessage }: { readonly stored: ToolCall; readonly resultMessage: (content: string) => ChatMessage },
  tools: DiscoveredTools,
  { limits, logger, messageNumber, onToolCall, approve, scope }: TurnDependencies,
  signal: AbortSignal,
): Promise<CallOutcome> => {
  // Arguments the call would refuse are refused before the host is asked to approve it.
  const check = argumentCheckOf(tools.toolMap.get(name));
  if (check !== undefined && approve !== undefined) {
    try {
      await check(args, scope ?? OUTSIDE_TURNS);
    } catch (error) {
      logger.warn('tool-failed', { tool: name, message: messageNumber, error: rejectionText(error) });
      return { stored, result: resultMessage(rejectionResult(error)) };
    }
  }
  const approval = approve === undefined ? undefined : await approve(name, args, tools, signal);
  if (approval !== undefined && !approval.run) {
    logger.event('tool-not-run', { tool: name, message: messageNumber });
    return { stored, result: resultMessage(approval.result) };
  }
  logger.event('tool-called', { tool: name, message: messageNumber });
  const waiting = approval?.run === true ? approval : undefined;
  // A call that itself waits for the host (February's evaluation) still shows the wait, not "calling".
  if (waiting?.waitsMs === undefined) onToolCall?.(name);
  logger.debug('tool-arguments', () => ({ tool: name, arguments: args }));
  try {
    const value = await executeTool(name, args, tools.toolMap, {
      timeoutMs: limits.toolTimeoutMs + (waiting?.waitsMs ?? 0),
      signal,
      scope,
    });
    waiting?.after?.();
    const text = resultAsText(value);
    logger.debug('tool-result', () => ({ tool: name, result: text }));
    return { stored, result: resultMessage(text) };
  } catch (error) {
    waiting?.after?.(error);
    logger.warn('tool-failed', { tool: name, message: messageNumber, error: rejectionText(error) });
    return { stored, result: resultMessage(rejectionResult(error)) };
  }
};

/** Runs the calls; `signal` aborts those still running when the turn is cancelled. */
const runToolCalls = async (
  calls: readonly ToolCall[],
  tools: DiscoveredTools,
  deps: TurnDependencies,
  signal: AbortSignal,
): Promise<CallOutcome[]> => {
  if (deps.limits.parallelTools) {
    return Promise.all(calls.map(call => runToolCall(call, tools, deps, signal)));
  }
  const outcomes: CallOutcome[] = [];
  for (const call of calls) {
    // Sequential on purpose: FAE_PARALLEL_TOOLS=0 asks for one at a time.
    // eslint-disable-next-line no-await-in-loop
    outcomes.push(await runToolCall(call, tools, deps, signal));
  }
  return outcomes;
};

/**
 * Runs the loop on `transcript`, which must already end with the user
 * turn. Assistant messages and tool results are appended to it. A failing
 * model call rejects; the transcript is then still valid to continue.
 */
export const runTurn = async (
  transcript: ChatMessage[],
  initialTools: DiscoveredTools,
  deps: TurnDependencies,
): Promise<TurnOutcome> => {
  const { provider, limits, cancelled, makeCallId, logger } = deps;
  const stop: Promise<typeof CANCELLED> = cancelled.promise.then(() => CANCELLED);
  const usedIds = new Set<string>();
  const usage: TurnUsage = deps.usage ?? noUsage();
  let tools = initialTools;
  for (let iteration = 1; iteration <= limits.maxIterations; iteration += 1) {
    // Already cancelled (say, while tools ran): ask the model nothing more.
    if (cancelled.isCancelled()) {
      return { kind: 'cancelled', iterations: iteration - 1, usage };
    }
    logger.debug('transcript', () => transcript);
    const { schemas } = tools;
    // eslint-disable-next-line no-await-in-loop
    const response = await unlessCancelled(cancelled, stop, async signal => {
      // Not hardened: a frozen signal could not be aborted.
      const options: ChatOptions = { signal, onText: deps.onText, onProgress: deps.onProgress };
      deps.onModelCall?.();
      const prepare = async () => (deps.prepareRequest ? deps.prepareRequest(transcript, schemas, options) : harden([...transcript]));
      const first = await prepare();
      // Too long for the server: once more, made within what it holds, unless nothing could be left out.
      return provider.chat(first, schemas, options).catch(async error => {
        if (!deps.narrowed?.(error)) throw error;
        const again = await prepare();
        if (again.length === first.length && again.every((message, i) => message === first[i])) throw error;
        return provider.chat(again, schemas, options);
      });
    });
    if (response === CANCELLED) {
      return { kind: 'cancelled', iterations: iteration, usage };
    }
    addResponseUsage(usage, response.usage);
    const { content, calls } = normalizeAssistant(response.message, makeCallId, usedIds);
    if (calls.length === 0) {
      transcript.push(harden({ role: 'assistant', content }));
      const cutOff = response.stopReason === 'max_tokens';
      return { kind: 'answered', content, cutOff, iterations: iteration, usage };
    }
    // eslint-disable-next-line no-await-in-loop
    const outcomes = await unlessCancelled(cancelled, stop, signal => runToolCalls(calls, tools, deps, signal));
    if (outcomes === CANCELLED) {
      return { kind: 'cancelled', iterations: iteration, usage };
    }
    transcript.push(
      harden({ role: 'assistant', content, tool_calls: outcomes.map(o => o.stored) }),
      ...outcomes.map(o => harden(o.result)),
    );
    // Tools may have been adopted, removed or added meanwhile (F13).
    // eslint-disable-next-line no-await-in-loop
    tools = await deps.discover();
  }
  return { kind: 'limit', iterations: limits.maxIterations, usage };
};
harden(runTurn);

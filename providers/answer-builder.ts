// Building one ChatResult from a stream's events, whatever the wire: the
// text as it comes (told to onText at once), tool calls by the index the
// API gives them with their arguments joined from pieces, token counts, the
// stop reason, and whether the closing event came. Each adapter's
// assembler only reads its events into a builder.
import { makeChatResult, makeToolCall, makeUsage, mapStopReason, type UsageCounts } from './assistant-result.js';
import { IncompleteStreamError } from './errors.js';
import type { ChatResult, StopReason } from './types.js';

/** Where each piece of assistant text goes as it comes: ChatOptions.onText. */
export type TextSink = ((delta: string) => void) | undefined;

/** The assistant's text as it comes: every piece kept, and told to onText at once. */
export const makeTextParts = (onText: TextSink) => {
  const pieces: string[] = [];
  return harden({
    add: (piece: unknown) => {
      if (typeof piece !== 'string' || piece === '') return;
      pieces.push(piece);
      onText?.(piece);
    },
    text: () => pieces.join(''),
  });
};
harden(makeTextParts);

interface CallParts {
  id: string;
  name: string;
  /** The arguments the call opened with, if any: all there are when no pieces follow. */
  input: unknown;
  readonly pieces: string[];
}

export interface AnswerBuilder {
  readonly text: (piece: unknown) => void;
  /** What the API says of tool call `index`: its id, name or opening arguments (later ones replace earlier). */
  readonly call: (index: number, given: { id?: string | null; name?: string | null; input?: unknown }) => void;
  /** A piece of the arguments text of tool call `index`, once the call is known. */
  readonly args: (index: number, piece: string | null | undefined) => void;
  /** Token counts; one not given (or null) keeps its last value. */
  readonly usage: (counts: UsageCounts) => void;
  readonly stop: (reason: string | null | undefined) => void;
  /** The closing event came. */
  readonly end: () => void;
  /** The answer; an IncompleteStreamError when the closing event never came. */
  readonly result: () => ChatResult;
}

/** A builder whose stop reasons read through `stopReasons`. */
export const makeAnswerBuilder = (
  onText: TextSink,
  stopReasons: Readonly<Record<string, StopReason>>,
): AnswerBuilder => {
  const text = makeTextParts(onText);
  const calls = new Map<number, CallParts>();
  const counts: Record<keyof UsageCounts, unknown> = { input: undefined, output: undefined, cached: undefined, cacheWrite: undefined };
  let reason: string | null | undefined;
  let ended = false;
  const call = (index: number, { id, name, input }: { id?: string | null; name?: string | null; input?: unknown }) => {
    const parts = calls.get(index) ?? { id: '', name: '', input: undefined, pieces: [] };
    calls.set(index, parts);
    if (id) parts.id = id;
    if (name) parts.name = name;
    if (input !== undefined) parts.input = input;
  };
  const result = () => {
    if (!ended) throw new IncompleteStreamError();
    const toolCalls = [...calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, { id, name, input, pieces }]) => makeToolCall(id, name, pieces.join('') || input));
    return makeChatResult({
      content: text.text(),
      toolCalls,
      usage: makeUsage(counts),
      stopReason: mapStopReason(stopReasons, reason),
    });
  };
  return harden({
    text: text.add,
    call,
    args: (index: number, piece: string | null | undefined) => {
      if (piece) calls.get(index)?.pieces.push(piece);
    },
    usage: (given: UsageCounts) => {
      for (const name of Object.keys(counts) as (keyof UsageCounts)[]) counts[name] = given[name] ?? counts[name];
    },
    stop: (given: string | null | undefined) => {
      reason = given ?? reason;
    },
    end: () => {
      ended = true;
    },
    result,
  });
};
harden(makeAnswerBuilder);

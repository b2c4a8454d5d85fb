// Telling a model that is working from one that hangs, from the bytes of
// its streamed answer. Before the answer begins the model reads the prompt,
// which on a CPU takes tens of seconds for a few thousand tokens: that
// phase may last LAL_FIRST_TOKEN_MS, and only the server's word that it
// progresses (llama.cpp's prompt_progress) starts that time again; a
// keep-alive (an SSE comment, llama.cpp's every 30 s; an Anthropic ping)
// says the connection lives, not that the work does. Once the answer has
// begun, LAL_STALL_MS of silence between any two pieces ends it.

/** What a line of a streamed body says: nothing, that the connection lives, that the reading progresses, or the answer. */
export type LineKind = 'none' | 'alive' | 'progress' | 'answer';

/**
 * One line of an SSE stream (OpenAI, llama.cpp, Anthropic) or of an NDJSON
 * one (Ollama). A data line that reports prompt progress is not yet the
 * answer.
 */
export const kindOfLine = (line: string): LineKind => {
  const text = line.trim();
  if (text === '' || text.startsWith('event:') || text.startsWith('id:') || text.startsWith('retry:')) return 'none';
  if (text.startsWith(':')) return 'alive';
  if (text.includes('"prompt_progress"')) return 'progress';
  if (/^data:\s*\{"type"\s*:\s*"(ping|message_start)"/.test(text)) return 'alive';
  return 'answer';
};
harden(kindOfLine);

export interface LivenessLimits {
  /** How long the model may read before its answer begins, without word of progress. */
  readonly firstTokenMs: number;
  /** How long an answer that has begun may go silent. */
  readonly stallMs: number;
}

/** The timer a watch runs on (a test's own clock, or the real one). */
export interface WatchTimer {
  /** Calls `fire` after `ms`, unless `cancel`ed first; replaces what was set before. */
  readonly set: (ms: number, fire: () => void) => void;
  readonly cancel: () => void;
}

const realTimer = (): WatchTimer => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    set: (ms, fire) => {
      clearTimeout(timer);
      timer = setTimeout(fire, ms);
      // Unref'd: a watch left running keeps nothing alive.
      timer.unref?.();
    },
    cancel: () => clearTimeout(timer),
  };
};

/**
 * Watches one streamed answer from the moment its request goes out;
 * `abort` is called with 'start' or 'answer' (which phase ran out) once a
 * limit passes. `bytes` takes each piece of the body.
 */
export const watchLiveness = (
  { firstTokenMs, stallMs }: LivenessLimits,
  abort: (phase: 'start' | 'answer') => void,
  timer: WatchTimer = realTimer(),
) => {
  const decoder = new TextDecoder();
  let partial = '';
  let answering = false;
  const arm = (ms: number) => timer.set(ms, () => abort(answering ? 'answer' : 'start'));
  arm(firstTokenMs);
  return harden({
    bytes: (piece: Uint8Array) => {
      if (answering) {
        arm(stallMs);
        return;
      }
      const lines = (partial + decoder.decode(piece, { stream: true })).split('\n');
      partial = lines.pop() ?? '';
      const kinds = lines.map(kindOfLine);
      if (kinds.includes('answer')) {
        answering = true;
        arm(stallMs);
      } else if (kinds.includes('progress')) {
        arm(firstTokenMs);
      }
    },
    stop: () => timer.cancel(),
  });
};
harden(watchLiveness);
export type LivenessWatch = ReturnType<typeof watchLiveness>;

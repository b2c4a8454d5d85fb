// Telling a model that works from one that hangs (providers/liveness.ts), on
// a clock of the test's own: before the answer begins, only the server's
// word of progress starts LAL_FIRST_TOKEN_MS again, never a keep-alive;
// once it has begun, LAL_STALL_MS of silence between any pieces ends it.
// The lines are the real servers' (llama.cpp, OpenAI, Anthropic, Ollama).
import test from 'ava';
import { kindOfLine, watchLiveness, type WatchTimer } from '../providers/liveness.js';

/** A timer that fires only when the test says time has passed. */
const makeClock = () => {
  let now = 0;
  let due: { at: number; fire: () => void } | undefined;
  const timer: WatchTimer = {
    set: (ms, fire) => {
      due = { at: now + ms, fire };
    },
    cancel: () => {
      due = undefined;
    },
  };
  const advance = (ms: number) => {
    now += ms;
    if (due !== undefined && due.at <= now) {
      const { fire } = due;
      due = undefined;
      fire();
    }
  };
  return { timer, advance };
};

const bytes = (text: string) => new TextEncoder().encode(text);
const PROGRESS = (processed: number) =>
  `data: {"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"object":"chat.completion.chunk","prompt_progress":{"total":3122,"cache":0,"processed":${processed},"time_ms":8230}}\n\n`;
const CONTENT = 'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"_mu"}}],"object":"chat.completion.chunk"}\n\n';

test('each line of a stream is told apart: keep-alive, progress, answer', t => {
  t.is(kindOfLine(':'), 'alive', "llama.cpp's ping");
  t.is(kindOfLine(': ping'), 'alive');
  t.is(kindOfLine('event: ping'), 'none');
  t.is(kindOfLine('data: {"type":"ping"}'), 'alive', "Anthropic's ping");
  t.is(kindOfLine('data: {"type":"message_start","message":{}}'), 'alive');
  t.is(kindOfLine(PROGRESS(2048).trim()), 'progress');
  t.is(kindOfLine(CONTENT.trim()), 'answer');
  t.is(kindOfLine('{"model":"qwen3","message":{"role":"assistant","content":"Hi"},"done":false}'), 'answer', "Ollama's NDJSON");
  t.is(kindOfLine(''), 'none');
});

test('before the answer: progress keeps the reading going, keep-alives do not', t => {
  const { timer, advance } = makeClock();
  const aborted: string[] = [];
  const watch = watchLiveness({ firstTokenMs: 1000, stallMs: 100 }, phase => aborted.push(phase), timer);
  // A prompt read in batches, each under the limit: progress after each.
  for (let batch = 0; batch < 5; batch += 1) {
    advance(900);
    watch.bytes(bytes(PROGRESS(batch * 2048)));
  }
  t.deepEqual(aborted, [], 'five batches of 900 ms, each reported: still reading');
  // Keep-alives alone say nothing of the work.
  advance(600);
  watch.bytes(bytes(':\n\n'));
  advance(399);
  t.deepEqual(aborted, []);
  advance(1);
  t.deepEqual(aborted, ['start']);
});

test('once the answer has begun, any silence past LAL_STALL_MS ends it; a piece split across reads counts once whole', t => {
  const { timer, advance } = makeClock();
  const aborted: string[] = [];
  const watch = watchLiveness({ firstTokenMs: 1000, stallMs: 100 }, phase => aborted.push(phase), timer);
  advance(900);
  // The first line of the answer arrives in two pieces.
  watch.bytes(bytes(CONTENT.slice(0, 30)));
  advance(99);
  watch.bytes(bytes(CONTENT.slice(30)));
  advance(99);
  t.deepEqual(aborted, [], 'the answer began: the stall limit runs from its last piece');
  watch.bytes(bytes(':\n\n'));
  advance(100);
  t.deepEqual(aborted, ['answer']);
  watch.stop();
});

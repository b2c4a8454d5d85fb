// The status line's text, from fae's events (fae-follower.ts) and from
// the unfinished revisions of its replies (an August progress reply that
// fae edits as the turn goes): while some message of the user's is
// unanswered, whatever fae did last — "fae is calling greet", or
// "fae: Working on it… calling greet" — else "fae is thinking".
import type { FaeEvent } from '../agent/fae-events.js';

const THINKING = 'fae is thinking';
/** A reply's text on the status line: one line, and not the whole of a long one. */
const STATUS_CHARS = 100;

const oneLine = (text: string) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > STATUS_CHARS ? `${line.slice(0, STATUS_CHARS - 1)}…` : line;
};

export const makeProgress = (onChange: (status: string | undefined) => void) => {
  let busy = false;
  /** What fae did last, in words; undefined when it is back to thinking. */
  let doing: string | undefined;
  let shown: string | undefined;

  const update = () => {
    const status = busy ? (doing ?? THINKING) : undefined;
    if (status !== shown) {
      shown = status;
      onChange(status);
    }
  };
  const set = (text: string | undefined) => {
    doing = text;
    update();
  };

  return harden({
    /** Whether any message typed by the user still waits for fae's answer. */
    setBusy: (value: boolean) => {
      // Either way, what fae did before is not what it does now.
      busy = value;
      doing = undefined;
      update();
    },
    /** One of fae's events. */
    event: (event: FaeEvent) => {
      if (event.type === 'tool-called') {
        // Every call is news, even a second call of the same tool.
        shown = undefined;
        set(`fae is calling ${event.tool}`);
      } else if (event.type === 'progress') {
        set(`fae: ${oneLine(event.text)}`);
      } else if (event.type === 'turn-started' || event.type === 'answered' || event.type === 'missed') {
        // A new turn, or an answer out: back to thinking about what remains.
        // After a gap in the events nothing is known of what fae does now.
        set(undefined);
      }
    },
    /** A reply fae is still editing: its text stands for what fae does now. */
    unfinishedReply: (text: string) => set(`fae: ${oneLine(text)}`),
    /** A message from fae was printed: whatever it said it was doing is over. */
    replyShown: () => set(undefined),
  });
};
harden(makeProgress);
export type Progress = ReturnType<typeof makeProgress>;

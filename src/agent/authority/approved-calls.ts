// Approved means once. A consequential call that was approved (by the
// host, or a standing grant) is noted before it runs, with the message
// whose turn makes it, and the note stays until that turn is stored. A
// crash in between replays the message, and its new turn may make the
// same call again: then neither a grant nor a wish to go on covers it, and
// the host is asked again, told that it may have run already.
//
// The notes are kept in fae's directory, sealed from the tools; a note is
// the call's tool and a digest of its arguments (no argument is stored).
import { createHash } from 'node:crypto';
import { E } from '@endo/far';
import { M, matches } from '@endo/patterns';
import type { GuestPowers, Ref } from '../../daemon/endo-types.js';
import type { Logger } from '../../logging/log.js';
import { makeOrderedWrites } from '../../daemon/ordered-writes.js';

/** The sealed name the notes are kept under. */
export const APPROVED_CALLS_NAME = 'approved-calls';

/** Notes kept at most (the oldest go first): a turn is stored long before this many more calls run. */
export const APPROVED_CALLS_KEPT = 256;

interface Note {
  /** The message whose turn made the call (its id, or its number where it has none). */
  readonly message: string;
  /** The tool and a digest of its arguments. */
  readonly call: string;
  /** When it was approved (ISO). */
  readonly at: string;
}

const NoteShape = M.splitRecord({ message: M.string(), call: M.string(), at: M.string() });
const StoredShape = M.splitRecord({ notes: M.arrayOf(NoteShape) });

/** The call as a note names it: its tool and a digest of its arguments. */
const callOf = (tool: string, args: Readonly<Record<string, unknown>>) =>
  `${tool} ${createHash('sha256').update(JSON.stringify(args) ?? '').digest('hex').slice(0, 32)}`;

export const makeApprovedCalls = ({
  powers,
  logger,
  now = () => new Date(),
}: {
  readonly powers: Ref<GuestPowers>;
  readonly logger: Logger;
  readonly now?: () => Date;
}) => {
  let notes: readonly Note[] = harden([]);
  const store = makeOrderedWrites(powers, APPROVED_CALLS_NAME);
  /** Stores the notes as they are now (a refusal is logged: the notes are only a safeguard). */
  const write = () => store({ notes: [...notes] }).catch(error => logger.warn('approved-calls-not-stored', { error }));

  return harden({
    /** Reads the notes left by the run before (at start, before any turn). */
    start: async () => {
      try {
        if (!(await E(powers).has(APPROVED_CALLS_NAME))) return;
        const value = await E(powers).lookup(APPROVED_CALLS_NAME);
        if (matches(value, StoredShape)) notes = (value as { notes: readonly Note[] }).notes;
        else logger.warn('approved-calls-unreadable', { name: APPROVED_CALLS_NAME });
      } catch (error) {
        logger.warn('approved-calls-unread', { error });
      }
    },
    /** Whether this very call was approved for `message` before and may have run. */
    mayHaveRun: (message: string, tool: string, args: Readonly<Record<string, unknown>>) => {
      const call = callOf(tool, args);
      return notes.some(note => note.message === message && note.call === call);
    },
    /** Notes an approved call before it runs; resolves once the note is kept (or could not be). */
    willRun: async (message: string, tool: string, args: Readonly<Record<string, unknown>>) => {
      const note: Note = harden({ message, call: callOf(tool, args), at: now().toISOString() });
      notes = harden([...notes, note].slice(-APPROVED_CALLS_KEPT));
      await write();
    },
    /** The turn of `message` is stored: its calls will not be made again. */
    settled: async (message: string) => {
      if (!notes.some(note => note.message === message)) return;
      notes = harden(notes.filter(note => note.message !== message));
      await write();
    },
  });
};
harden(makeApprovedCalls);
export type ApprovedCalls = ReturnType<typeof makeApprovedCalls>;

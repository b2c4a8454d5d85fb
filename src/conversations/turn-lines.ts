// The turns of one conversation never overlap, and open in the order
// their messages were opened; turns of other conversations run meanwhile.
// A message waits in its conversation's line until the turn before it has
// ended (finished or abandoned). Messages take their places in line in
// the order they are opened, per correspondent: each finds its thread once
// the message opened before it has its place, so that a reply to a
// message still waiting in line finds that message's thread. Threads
// never span correspondents, so one correspondent's slow lookup (a stored
// conversation read back) delays no one else's mail.
import { makeLocalKit } from '../local-kit.js';
import { makeKeyedQueue } from './keyed-queue.js';
import { conversationKey } from './threads.js';
import { REPORTED_ALREADY, inBackground } from '../background.js';

/** A message's place in its conversation's line, from placing until its turn ends. */
export interface Place {
  readonly key: string;
  readonly thread: string;
  readonly correspondent: string;
  readonly messageId: string;
  /** Resolves once the turn before it in its conversation has ended: its own may open. */
  readonly ready: Promise<void>;
  /** Whether its conversation was forgotten while its turn was open: nothing of the turn is kept. */
  readonly forgotten: () => boolean;
}

interface Placed {
  readonly place: Place;
  /** Lets the next turn in line open. */
  readonly end: () => void;
  forgotten: boolean;
}

export const makeTurnLines = () => {
  /** Placing, one message at a time per correspondent. */
  const placing = makeKeyedQueue();
  /** The turns, one at a time per conversation key. */
  const turns = makeKeyedQueue();
  /** The messages waiting in line or whose turn is open, by message id. */
  const byMessage = new Map<string, Placed>();
  /** The turn open in each conversation, by key. */
  const openIn = new Map<string, Placed>();
  /** Every place handed out, to find its state again. */
  const states = new WeakMap<Place, Placed>();

  const stateOf = (place: Place) => {
    const state = states.get(place);
    if (state === undefined) throw Error('not a place in a conversation line');
    return state;
  };

  /** Puts message `messageId` of `correspondent` in the line of `thread`. */
  const enqueue = (correspondent: string, messageId: string, thread: string) => {
    const key = conversationKey(correspondent, thread);
    const ended = makeLocalKit<void>();
    const ready = new Promise<void>(resolve => {
      // The line's work only waits for the turn to end, which resolves.
      inBackground(
        turns.run(key, () => {
          resolve();
          return ended.promise;
        }),
        REPORTED_ALREADY,
      );
    });
    const state: Placed = {
      // Frozen, not hardened: fae's own, made for every message (hardening
      // would walk the fresh function and the promise in it).
      place: Object.freeze({ key, thread, correspondent, messageId, ready, forgotten: () => state.forgotten }),
      end: () => ended.resolve(),
      forgotten: false,
    };
    states.set(state.place, state);
    byMessage.set(messageId, state);
    return state.place;
  };

  return harden({
    /**
     * The place of message `messageId` of `correspondent`, in the line of
     * the thread `findThread` names; found once the message opened before
     * it (of the same correspondent) has its place.
     */
    place: (correspondent: string, messageId: string, findThread: () => Promise<string>) =>
      placing.run(correspondent, async () => enqueue(correspondent, messageId, await findThread())),
    /** The turn at `place` is open (its line is its own until end). */
    begin: (place: Place) => {
      openIn.set(place.key, stateOf(place));
    },
    /** The turn at `place` ended, or never opened: the next in line may open. */
    end: (place: Place) => {
      const state = stateOf(place);
      if (openIn.get(place.key) === state) openIn.delete(place.key);
      if (byMessage.get(place.messageId) === state) byMessage.delete(place.messageId);
      state.end();
    },
    /** Where message `id` of `correspondent` waits or is answered, if it does. */
    placeOf: (id: string, correspondent: string): Place | undefined => {
      const place = byMessage.get(id)?.place;
      return place?.correspondent === correspondent ? place : undefined;
    },
    /** Whether a turn of conversation `key` is open, or a message waits in its line. */
    busy: (key: string) => turns.has(key),
    /** The keys of the conversations of `correspondent` with a turn open. */
    openKeysOf: (correspondent: string) =>
      [...openIn.values()].filter(state => state.place.correspondent === correspondent).map(state => state.place.key),
    /** The conversation `key` is forgotten: its open turn keeps nothing, and a reply to it finds no thread. */
    forget: (key: string) => {
      const state = openIn.get(key);
      if (state === undefined) return;
      state.forgotten = true;
      if (byMessage.get(state.place.messageId) === state) byMessage.delete(state.place.messageId);
    },
  });
};
harden(makeTurnLines);
export type TurnLines = ReturnType<typeof makeTurnLines>;

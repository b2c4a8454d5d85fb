// The chat learns what fae is doing from fae's own event API (the Fae
// exo's followEvents(), src/agent/fae-events.ts), never from its log
// lines: those are for --verbose only, and their wording may change.
//
// followFaeEvents reads one fae's events; followRunningFae keeps
// following whichever fae runs now (/reset replaces it); watchFaeEvents
// says what each event means to the chat: the status line, and which of
// the user's messages fae is done with.
import { E } from '@endo/far';
import type { FaeEvent } from '../agent/fae-events.js';
import type { PendingAnswers } from './pending.js';
import type { Progress } from './progress.js';

export type { FaeEvent };

export interface FaeFollowerHandlers {
  readonly onEvent: (event: FaeEvent) => void;
  /** The events stopped before stop() was called: fae's iterator ended or broke. */
  readonly onEnd?: (error?: unknown) => void;
}

// `any`: the controller and its iterator are remote presences; E() checks nothing statically.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

/**
 * Follows `controller`'s events, one next() at a time, until stop(); stop
 * ends fae's side of the iterator with return(), so fae stops queueing
 * events for a chat that no longer reads them.
 */
export const followFaeEvents = (controller: Far, { onEvent, onEnd = () => {} }: FaeFollowerHandlers) => {
  let stopped = false;
  const iterator: Promise<Far> = Promise.resolve(E(controller).followEvents());

  const read = async () => {
    const events = await iterator;
    while (!stopped) {
      // One at a time, in order: each event changes what the next one means.
      // eslint-disable-next-line no-await-in-loop
      const result = (await E(events).next()) as IteratorResult<FaeEvent>;
      if (result.done || stopped) break;
      onEvent(result.value);
    }
  };
  read().then(
    () => {
      if (!stopped) onEnd();
    },
    error => {
      if (!stopped) onEnd(error);
    },
  );

  return harden({
    /** Stops following; resolves once fae was told (or could not be). */
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await iterator.then(events => E(events).return()).catch(() => {});
    },
  });
};
harden(followFaeEvents);
export type FaeFollower = ReturnType<typeof followFaeEvents>;

/**
 * The running fae, and its events: follow() takes the controller `lookup`
 * gives now, unfollow() lets it go before it is replaced or stopped.
 * Held, not looked up again: a lookup of a cancelled caplet's name would
 * make it anew.
 */
export const followRunningFae = (lookup: () => Promise<Far>, handlers: FaeFollowerHandlers) => {
  let controller: Far | undefined;
  let events: FaeFollower | undefined;
  return harden({
    follow: async () => {
      const current: Far = await lookup();
      controller = current;
      events = followFaeEvents(current, handlers);
    },
    unfollow: async () => {
      controller = undefined;
      const following = events;
      events = undefined;
      await following?.stop();
    },
    /** The controller followed now; undefined between unfollow() and follow(). */
    controller: (): Far | undefined => controller,
  });
};
harden(followRunningFae);

export interface WatchOptions {
  readonly progress: Progress;
  readonly pending: PendingAnswers;
  /** Some events were dropped: look at fae's status again. */
  readonly resync: () => void;
}

/** What one of fae's events means to the chat. */
export const watchFaeEvents =
  ({ progress, pending, resync }: WatchOptions) =>
  (event: FaeEvent) => {
    pending.activity();
    progress.event(event);
    // A turn that ended owes no answer, whether fae replied, sent, or
    // only said it was working on it.
    if (event.type === 'turn-done' && event.messageId !== '') pending.done(event.messageId);
    if (event.type === 'missed') resync();
  };
harden(watchFaeEvents);

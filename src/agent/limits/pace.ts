// A correspondent that writes faster than a person would is paused: two
// agents that answer each other (two faes, each mailed the other) would
// otherwise trade answers for ever, at a model call each. Past
// FAE_TURNS_PER_MINUTE model turns within a minute, a correspondent's
// mail gets no model answer for FAE_PAUSE_MS: the first message of the
// pause is told so (the other agent answers that one notice, and its own
// guard pauses it in turn, which ends the exchange), the rest are set
// aside, and the host hears of it once per pause. The host is never
// paused, and commands (no model call) do not count.
import type { Logger } from '../../logging/log.js';

/** Correspondents whose pace fae keeps, at most (the least recent goes first). */
export const PACE_ENTRIES = 1024;
const MINUTE_MS = 60_000;

export interface PaceSettings {
  /** Model turns one correspondent may start within a minute. */
  readonly perMinute: number;
  /** How long a correspondent past it gets no model answer. */
  readonly pauseMs: number;
}

interface Entry {
  /** When its latest turns started, oldest first, at most perMinute of them. */
  readonly starts: number[];
  /** Until when it is paused; 0 for not. */
  pausedUntil: number;
}

export const makePace = ({
  settings,
  logger,
  tellHost,
  now = Date.now,
}: {
  readonly settings: PaceSettings;
  readonly logger: Logger;
  /** Tells the host (a text in fae's words; refusals are the caller's to log). */
  readonly tellHost: (text: string) => Promise<void>;
  readonly now?: () => number;
}) => {
  // The least recently seen first: those that wrote nothing for a minute
  // and are not paused are dropped from the front, so the table holds only
  // the correspondents of the last minute, however many write in a day.
  const entries = new Map<string, Entry>();
  const isIdle = (entry: Entry, at: number) =>
    at >= entry.pausedUntil && entry.starts.every(start => at - start >= MINUTE_MS);
  const entryOf = (correspondent: string, at: number) => {
    const known = entries.get(correspondent);
    entries.delete(correspondent);
    for (const [key, entry] of entries) {
      if (entries.size < PACE_ENTRIES && !isIdle(entry, at)) break;
      entries.delete(key);
    }
    const entry = known ?? { starts: [], pausedUntil: 0 };
    entries.set(correspondent, entry);
    return entry;
  };

  const pause = (entry: Entry, name: string, at: number) => {
    entry.pausedUntil = at + settings.pauseMs;
    entry.starts.length = 0;
    const minutes = Math.max(1, Math.round(settings.pauseMs / MINUTE_MS));
    logger.event('correspondent-paused', { correspondent: name, minutes });
    tellHost(
      `Mail from ${name} came faster than a person writes (${settings.perMinute} messages within a minute): perhaps another agent, answering each of my answers. I give it no model answer for ${minutes} minutes (FAE_TURNS_PER_MINUTE, FAE_PAUSE_MS).`,
    ).catch(error => logger.warn('host-report-failed', { kind: 'pace', error }));
  };

  return harden({
    /**
     * Whether a model turn of `correspondent` may start now ('ok', and it
     * counts), or, paused, 'notice' for the first message of the pause
     * (it is told so) and 'quiet' after.
     */
    check: (correspondent: string, name: string, fromHost: boolean): 'ok' | 'notice' | 'quiet' => {
      if (fromHost || settings.perMinute === 0) return 'ok';
      const at = now();
      const entry = entryOf(correspondent, at);
      if (at < entry.pausedUntil) return 'quiet';
      const recent = entry.starts.filter(start => at - start < MINUTE_MS);
      if (recent.length >= settings.perMinute) {
        pause(entry, name, at);
        return 'notice';
      }
      entry.starts.splice(0, entry.starts.length, ...recent, at);
      return 'ok';
    },
    /** Correspondents whose pace is kept now (for bounds tests). */
    size: () => entries.size,
  });
};
harden(makePace);
export type Pace = ReturnType<typeof makePace>;

/** What a correspondent paused for its pace reads, once. */
export const paceNotice = (minutes: number) =>
  `You are writing to me faster than I can answer, so I am pausing our conversation for ${minutes} minutes; write again after that. The host has been told.`;
harden(paceNotice);

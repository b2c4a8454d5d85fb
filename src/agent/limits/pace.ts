// A correspondent that writes faster than a person would is paused: two
// agents that answer each other (two faes, each mailed the other) would
// otherwise trade answers for ever, at a model call each. Past
// FAE_TURNS_PER_MINUTE model turns within a minute, a correspondent's
// mail gets no model answer for FAE_PAUSE_MS: the first message of the
// pause is told so (the other agent answers that one notice, and its own
// guard pauses it in turn, which ends the exchange), the rest are set
// aside. The host is never paused, and commands (no model call) do not
// count.
//
// Bounded however many correspondents write: the recent starts are kept
// for the correspondents of the last minute only (PACE_ENTRIES at most),
// and a pause is kept apart from them until it ends, so a flood of new
// correspondents never lets a paused one go early (PAUSES_KEPT at most,
// the earliest to end going first). The host hears of pauses at most once
// per REPORT_EVERY_MS, in one message naming who was paused meanwhile.
import type { Logger } from '../../logging/log.js';
import { REPORTED_ALREADY, inBackground } from '../../background.js';

/** Correspondents whose recent starts fae keeps, at most (the least recent goes first). */
export const PACE_ENTRIES = 1024;
/** Pauses fae keeps, at most: each costs a correspondent FAE_TURNS_PER_MINUTE messages. */
export const PAUSES_KEPT = 16_384;
/** How often, at most, the host hears of pauses. */
export const PAUSE_REPORT_EVERY_MS = 10 * 60_000;
/** Names one report lists, at most; it counts the others. */
const NAMES_REPORTED = 20;
const MINUTE_MS = 60_000;

export interface PaceSettings {
  /** Model turns one correspondent may start within a minute. */
  readonly perMinute: number;
  /** How long a correspondent past it gets no model answer. */
  readonly pauseMs: number;
}

/** Tells the host of pauses, once per period: the first at once, the rest together at the period's end. */
const makePauseReports = ({
  settings,
  logger,
  tellHost,
  now,
}: {
  readonly settings: PaceSettings;
  readonly logger: Logger;
  readonly tellHost: (text: string) => Promise<void>;
  readonly now: () => number;
}) => {
  const minutes = Math.max(1, Math.round(settings.pauseMs / MINUTE_MS));
  let unreported: string[] = [];
  let more = 0;
  let lastTold = -Infinity;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const tell = () => {
    timer = undefined;
    if (unreported.length === 0) return;
    const names = unreported.join(', ');
    const others = more === 0 ? '' : ` and ${more} other${more === 1 ? '' : 's'}`;
    [unreported, more, lastTold] = [[], 0, now()];
    inBackground(
      tellHost(
        `Mail from ${names}${others} came faster than a person writes (${settings.perMinute} messages within a minute): perhaps other agents, answering each of my answers. I give each no model answer for ${minutes} minutes after that (FAE_TURNS_PER_MINUTE, FAE_PAUSE_MS). I tell you of this at most once every ${Math.round(PAUSE_REPORT_EVERY_MS / MINUTE_MS)} minutes.`,
      ).catch(error => logger.warn('host-report-failed', { kind: 'pace', error })),
      REPORTED_ALREADY,
    );
  };

  return harden({
    paused: (name: string) => {
      if (unreported.length < NAMES_REPORTED && !unreported.includes(name)) unreported.push(name);
      else more += 1;
      const wait = lastTold + PAUSE_REPORT_EVERY_MS - now();
      if (wait <= 0) tell();
      else if (timer === undefined) {
        timer = setTimeout(tell, wait);
        timer.unref?.();
      }
    },
  });
};

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
  // When each correspondent's latest turns started, oldest first: the least
  // recently seen first, those idle for a minute dropped from the front.
  const starts = new Map<string, number[]>();
  // Until when each paused correspondent is paused, the earliest to end first.
  const pauses = new Map<string, number>();
  const reports = makePauseReports({ settings, logger, tellHost, now });

  const startsOf = (correspondent: string, at: number) => {
    const known = starts.get(correspondent) ?? [];
    starts.delete(correspondent);
    for (const [key, times] of starts) {
      if (starts.size < PACE_ENTRIES && times.some(start => at - start < MINUTE_MS)) break;
      starts.delete(key);
    }
    starts.set(correspondent, known);
    return known;
  };

  /** Whether `correspondent` is paused at `at`; ended pauses are let go. */
  const isPaused = (correspondent: string, at: number) => {
    for (const [key, until] of pauses) {
      if (until > at) break;
      pauses.delete(key);
    }
    return (pauses.get(correspondent) ?? 0) > at;
  };

  const pause = (correspondent: string, name: string, at: number) => {
    pauses.delete(correspondent);
    pauses.set(correspondent, at + settings.pauseMs);
    if (pauses.size > PAUSES_KEPT) pauses.delete(pauses.keys().next().value as string);
    starts.delete(correspondent);
    logger.event('correspondent-paused', { correspondent: name, minutes: Math.max(1, Math.round(settings.pauseMs / MINUTE_MS)) });
    reports.paused(name);
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
      if (isPaused(correspondent, at)) return 'quiet';
      const recent = startsOf(correspondent, at).filter(start => at - start < MINUTE_MS);
      if (recent.length >= settings.perMinute) {
        pause(correspondent, name, at);
        return 'notice';
      }
      starts.set(correspondent, [...recent, at]);
      return 'ok';
    },
    /** Correspondents whose recent starts are kept now, and those paused (for bounds tests). */
    size: () => starts.size,
    paused: () => pauses.size,
  });
};
harden(makePace);
export type Pace = ReturnType<typeof makePace>;

/** What a correspondent paused for its pace reads, once. */
export const paceNotice = (minutes: number) =>
  `You are writing to me faster than I can answer, so I am pausing our conversation for ${minutes} minutes; write again after that. My host knows of it.`;
harden(paceNotice);

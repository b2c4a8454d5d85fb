// The host hears of trouble in a correspondent's turn once per kind of
// trouble per ten minutes, not once per message: a model that is down
// fails every message, and one report says all the host can act on. The
// table holds one time per kind, and the kinds are few (closing-notices.ts).
import type { Logger } from '../../logging/log.js';
import type { NoticeKind, Notice } from '../turn/closing-notices.js';

/** How long the host is not told again of a kind of trouble it heard of. */
export const REPORT_EVERY_MS = 10 * 60_000;

export interface HostReportsOptions {
  /** Sends the host a text (already in fae's words; redacted on the way). */
  readonly send: (text: string) => Promise<void>;
  readonly logger: Logger;
  readonly now?: () => number;
  readonly everyMs?: number;
}

export const makeHostReports = ({ send, logger, now = Date.now, everyMs = REPORT_EVERY_MS }: HostReportsOptions) => {
  /** When the host last heard of each kind. */
  const lastTold = new Map<NoticeKind, number>();
  /** Whether the host is due a report of `kind`; if so, it counts as told from now. */
  const due = (kind: NoticeKind) => {
    const at = now();
    const last = lastTold.get(kind);
    if (last !== undefined && at - last < everyMs) return false;
    lastTold.set(kind, at);
    return true;
  };
  return harden({
    /** The host read `notice` as the answer to its own message. */
    told: (notice: Notice) => {
      lastTold.set(notice.kind, now());
    },
    /**
     * Tells the host of `notice` about a correspondent's message, unless it
     * heard of that kind lately. A refusal is logged, never thrown.
     */
    report: async (notice: Notice) => {
      if (!due(notice.kind)) return;
      const minutes = Math.round(everyMs / 60_000);
      const text = `${notice.detailed}\n\n(The sender was told in plain words. I tell you of this kind of trouble at most once every ${minutes} minutes.)`;
      try {
        await send(text);
        logger.event('host-told', { kind: notice.kind });
      } catch (error) {
        logger.warn('host-report-failed', { kind: notice.kind, error });
      }
    },
  });
};
harden(makeHostReports);
export type HostReports = ReturnType<typeof makeHostReports>;

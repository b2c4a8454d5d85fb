// What a turn tells the built-ins it calls: whose authority it acts with.
// One fae serves many correspondents with one set of powers; a built-in
// never reaches for those powers itself. Each call brings its turn's
// scope, and the built-ins work on a view of the powers made for that
// scope (sealed-powers.ts): it sees only the principal's mail, and hands
// nothing fae holds to anyone unless the principal's `mayGive` lets it.
import type { MessageRecord } from '../../daemon/endo-types.js';

/** One capability a built-in would hand over: as the model named it, and what it is. */
export interface GivenItem {
  /** The name or path the model gave, for the host to read ("tools/run-command"). */
  readonly shown: string;
  /** Its id (a formula id, whatever the daemon's syntax). */
  readonly id: string;
}

/** Who would receive it: a party to mail, or whoever else reads a directory fae writes to. */
export interface Recipient {
  readonly kind: 'party' | 'directory';
  /** Its id: a handle or an agent for mail, the directory for a copy; none when the daemon would not say. */
  readonly id: string | undefined;
  /** How the model named it, for the host ("alice", "message #4's sender", "shared/"). */
  readonly shown: string;
  /** Fae's host, who holds everything fae holds already. */
  readonly isHost: boolean;
}

/**
 * An act that moves authority out of fae: capabilities attached to mail
 * (send, reply), a request's answer (resolve), or bound in a directory
 * that is not fae's own (copy, move).
 */
export interface Give {
  readonly how: 'send' | 'reply' | 'resolve' | 'copy' | 'move';
  readonly items: readonly GivenItem[];
  readonly to: Recipient;
}

/** The authority a turn acts with: its correspondent's, never fae's whole. */
export interface TurnPrincipal {
  /**
   * The principal is fae's host, whose authority is fae's whole: its turns
   * may change the names the host made. No other turn may.
   */
  readonly isHost: boolean;
  /**
   * Whether the turn may see and act on an inbox message: its
   * correspondent's, and fae's own to them (the host's turns: all mail but
   * fae's own business with its host). Any other is "no such message".
   */
  readonly ownsMessage: (message: MessageRecord) => boolean;
  /**
   * Resolves when the capabilities may go (the host approved, a grant
   * covers it, or they go back to whoever gave them); rejects with the
   * reason, for the model, when they may not.
   */
  readonly mayGive: (give: Give) => Promise<void>;
}

/** What a turn tells the built-ins it calls. */
export interface TurnScope {
  /** The number of the message the turn handles; none outside a turn. */
  readonly messageNumber?: bigint;
  readonly principal: TurnPrincipal;
  /** Forgets every thread of the turn's correspondent; how many went. */
  readonly forget?: () => Promise<number>;
  /** Whether the turn waits for its host now (a hand-over's approval): its built-ins' time stands still. */
  readonly waitingForHost?: () => boolean;
}

/**
 * The scope of a call from outside any turn (a built-in's exo reached
 * through E(), which fae never hands out): no principal, so no mail and
 * nothing to give.
 */
export const OUTSIDE_TURNS: TurnScope = harden({
  principal: {
    isHost: false,
    ownsMessage: () => false,
    mayGive: async () => {
      throw Error('nothing may be handed out outside a turn');
    },
  },
});

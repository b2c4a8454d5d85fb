// The public surface of the local daemon: an in-process model of an Endo
// daemon (host, guests, pet stores, mail, caplets) that is faithful to
// ../shared/spec/endo-guest-api.md. Tests build on it, and `npm start` runs
// fae on it. Everything a caplet receives crosses a real CapTP loopback, so
// only E() works on it, exactly as in a daemon worker.

import type { Dialect } from '../daemon/dialect.js';

/** A remote reference: only E() works on it. */
export type Presence = object;

/** What a caplet module exports. */
export type MakeCaplet = (
  powers: Promise<Presence>,
  context: Presence,
  options: { readonly env: Readonly<Record<string, string>> },
) => unknown;

export interface MakeCapletOptions {
  /** Host-side name of the powers (default 'NONE' or '@none'), as for makeUnconfined. */
  readonly powersName?: string;
  /** Host-side name (or path) to bind the caplet's value to. */
  readonly resultName?: string | readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** Worker name; default 'MAIN' or '@main'. */
  readonly workerName?: string;
}

/** Counts of daemon method calls, by method name ("send", "lookup", ...). */
export type CallCounts = Readonly<Record<string, number>>;

export interface LocalDaemonOptions {
  /**
   * The guest API generation to speak: 'feb' (f0a46042a, the default),
   * 'may' (33311ae9a) or 'aug' (1ef30c259); see ../shared/spec/.
   */
  readonly dialect?: Dialect;
  /** Added to every guest/host/directory/iterator method call, in ms. */
  readonly latencyMs?: number;
  /**
   * Passes `gcImports: true` to both CapTP ends of every connection, so a
   * presence or answer one side drops is released by the other (CapTP
   * sends CTP_DROP from a FinalizationRegistry callback). Default false,
   * as in the real daemon, which does not set it: there every presence a
   * worker ever imported, and every answer, is held for the connection's
   * life, so any agent's process heap grows with each message it handles.
   * True is for benches that want an agent's own heap growth without
   * CapTP's.
   */
  readonly gcImports?: boolean;
  /**
   * When the collection pass runs: after each guest or host call once no
   * other is in flight ('after-calls', the default, as February's daemon
   * does), or only when collect() is called ('on-demand'). The pass walks
   * every formula the daemon holds: run beside an agent's work, on a
   * machine of few cores, it slows that work, so benches that time an
   * agent's own thread collect between its messages instead.
   */
  readonly collection?: 'after-calls' | 'on-demand';
}

export interface LocalDaemon {
  /** The guest API generation this daemon speaks. */
  readonly dialect: Dialect;
  /**
   * The root host's powers (an EndoHost) as a far presence, as
   * `endo run --powers AGENT` hands them to a setup script's main().
   */
  readonly host: Promise<Presence>;
  /**
   * Runs an in-process make function as a caplet, like
   * host.makeUnconfined but without a module specifier; it goes through the
   * same formula machinery, so restart() runs it again. Resolves to the
   * caplet's value as the host would see it (a presence).
   */
  makeCaplet(make: MakeCaplet, options?: MakeCapletOptions): Promise<Presence>;
  /**
   * Simulates `endo restart`: every live caplet's context is cancelled and
   * its follow iterators die; the pet stores and mailboxes stay; then
   * every caplet formula that is still reachable is incarnated again (a
   * fresh make() call with the same powers, env and result name).
   */
  restart(): Promise<void>;
  /** Cancels every caplet (as a daemon stop does) and ends all iterators. */
  stop(): Promise<void>;
  /**
   * How many follow* readers are still live on the daemon side (not yet
   * ended by return, a close syn, or the daemon): tests check that a
   * reader was let go whatever its shape.
   */
  openFollowers(): number;
  /**
   * The messages of the exceptions the workers' CapTP carried (a call of
   * theirs answered with an error, a promise they held broken), the latest
   * 100: what a real daemon's worker logs as "CapTP Endo exception", each
   * with its stack, in the log its operator reads.
   */
  workerExceptions(): readonly string[];
  /** Runs the collection pass now, if anything changed since the last one (see LocalDaemonOptions.collection). */
  collect(): void;
  /** Method call counters, for benchmarks and round-trip assertions. */
  callCounts(): CallCounts;
  resetCallCounts(): void;
  setLatency(ms: number): void;
}

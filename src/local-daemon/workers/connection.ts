// The far boundary: two CapTP endpoints wired back to back in one process,
// as in @endo/captp's makeLoopback, but with both ends kept so the daemon
// can sever the connection (a worker process dying on restart or stop).
// Everything that crosses is marshalled by CapTP: remotables become
// presences, promises become remote promises, data is copied and hardened.
import { makeCapTP } from '@endo/captp';

export interface Connection {
  /** The far side's bootstrap, as a presence on the near side. */
  readonly farBootstrap: Promise<unknown>;
  /** The near side's bootstrap, as a presence on the far side. */
  readonly nearBootstrap: Promise<unknown>;
  /** Severs the connection: calls on its presences reject with `reason`. */
  abort(reason: Error): void;
}

export interface ConnectionOptions {
  /** Both ends release what the other dropped (see LocalDaemonOptions). */
  readonly gcImports?: boolean;
  /**
   * Told of every exception the far end's CapTP carries (an answer that
   * rejected, a promise it imported that was broken), as a real worker
   * logs each one ("CapTP Endo exception").
   */
  readonly onFarReject?: (reason: unknown) => void;
}

export const makeConnection = (
  name: string,
  nearBootstrap: object,
  farBootstrap: object,
  { gcImports = false, onFarReject = () => {} }: ConnectionOptions = {},
): Connection => {
  // onReject: CapTP reports every exception it carries; the callers see them anyway.
  const options = harden({ onReject: () => {}, gcImports });
  let farDispatch: (message: unknown) => boolean = () => false;
  const near = makeCapTP(`${name}-near`, (message: unknown) => farDispatch(message), nearBootstrap, options);
  const far = makeCapTP(`${name}-far`, (message: unknown) => near.dispatch(message), farBootstrap, {
    ...options,
    onReject: onFarReject,
  });
  farDispatch = far.dispatch;
  let aborted = false;
  return harden({
    farBootstrap: near.getBootstrap(),
    nearBootstrap: far.getBootstrap(),
    abort: (reason: Error) => {
      if (aborted) return;
      aborted = true;
      near.abort(reason);
      far.abort(reason);
    },
  });
};
harden(makeConnection);

// Fae's built-in tools over a real guest in the local daemon, without the
// agent loop: each call goes through E() on the guest powers, as it does
// when the model makes it. The daemon stops when the test ends, pass or fail.
import type { ExecutionContext } from 'ava';
import { E } from '@endo/far';
import { Fail } from '@endo/errors';
import { makeBuiltInTools, type BuiltInToolHooks } from '../../src/toolbox/built-ins/built-in-tools.js';
import { ownExecuteOf } from '../../src/toolbox/built-ins/built-in-tool.js';
import type { TurnScope } from '../../src/toolbox/built-ins/turn-scope.js';
import { detectDialect, specialNames } from '../../src/daemon/dialect.js';
import { makeLocalDaemon, type LocalDaemon } from './daemon.js';

// `any`: the daemon's objects are remote references.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

export interface GuestOptions {
  /** Host-side names given to the guest under the same names. */
  readonly introduced?: readonly string[];
  /** Runs with the host before the guest is made. */
  readonly prepare?: (host: Far, daemon: LocalDaemon) => Promise<void>;
  readonly hooks?: BuiltInToolHooks;
  /** The scope the calls are made in: the host's turn, letting everything go, unless given. */
  readonly scope?: TurnScope;
}

/** A turn of the host's, which sees all mail and may hand anything over (nothing asks). */
export const HOST_SCOPE: TurnScope = harden({
  principal: { isHost: true, ownsMessage: () => true, mayGive: async () => {} },
});

export const startGuestWithBuiltIns = async (
  t: ExecutionContext,
  { introduced = [], prepare, hooks, scope = HOST_SCOPE }: GuestOptions = {},
) => {
  const daemon = makeLocalDaemon();
  // In-process, nothing else keeps the event loop alive while a call waits
  // on an unref'd timeout (in a daemon worker, its connection does).
  const keepAlive = setInterval(() => {}, 60_000);
  t.teardown(() => {
    clearInterval(keepAlive);
    return daemon.stop();
  });
  const host: Far = await daemon.host;
  await prepare?.(host, daemon);
  await E(host).provideGuest('fae', {
    introducedNames: Object.fromEntries(introduced.map(name => [name, name])),
    agentName: 'profile-for-fae',
  });
  const powers: Far = await E(host).lookup('profile-for-fae');
  const special = specialNames(await detectDialect(powers));
  const { tools } = makeBuiltInTools(powers, hooks);
  /** Calls a built-in as fae does in a turn of `scope`'s (executeTool); resolves to its result. */
  const call = async (name: string, args: Record<string, unknown> = {}, within: TurnScope = scope): Promise<unknown> => {
    const execute = ownExecuteOf(tools.get(name)) ?? Fail`no built-in ${name}`;
    return execute(harden(args), within);
  };
  /** The numbers of the messages in the guest's inbox, oldest first. */
  const inbox = async (): Promise<bigint[]> =>
    (await E(powers).listMessages()).map((m: { number: bigint }) => m.number);
  return { daemon, host, powers, special, tools, call, inbox };
};

/** Waits, one event-loop turn at a time, until `check` holds (or gives up). */
export const eventually = async (check: () => Promise<boolean>, turns = 500) => {
  for (let i = 0; i < turns; i += 1) {
    if (await check()) return true;
    await new Promise(resolve => setImmediate(resolve));
  }
  return false;
};

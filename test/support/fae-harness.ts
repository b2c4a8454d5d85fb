// Starts fae in a local daemon the way setup.js provisions it (a guest
// `fae` with agent `profile-for-fae`, the caplet bound as
// `controller-for-fae`), but with an in-process provider, and collects
// its log lines. Used by the agent's scenario tests.
import { E } from '@endo/far';
import type { Provider } from '../../providers/types.js';
import type { Dialect } from '../../src/daemon/dialect.js';
import { startFae, READY_MESSAGE, READY_TEXT } from '../../src/agent/fae.js';
import { makeLocalDaemon, messageText, nextMessage } from './daemon.js';
import { makeDaemonAdapter } from '../../src/daemon/adapter.js';
import type { LocalDaemon, MessageRecord } from './daemon.js';

// `any`: the daemon's objects are remote references.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Far = any;

/**
 * The special names a fresh guest lists, by dialect
 * (../shared/spec/endo-guest-api.md §1.3, endo-guest-api-next.md §1).
 */
export const GUEST_SPECIAL_NAMES: Readonly<Record<Dialect, readonly string[]>> = harden({
  feb: ['AGENT', 'HOST', 'MAIL', 'SELF'],
  may: ['@agent', '@host', '@mail', '@nets', '@self'],
  aug: ['@agent', '@host', '@mail', '@nets', '@planes', '@self'],
});

export interface FaeHarnessOptions {
  readonly provider: Provider;
  readonly env?: Record<string, string>;
  /** Host-side names to introduce into fae's directory. */
  readonly introducedNames?: Record<string, string>;
  /** Called with the host before fae is provisioned. */
  readonly prepare?: (host: Far, daemon: LocalDaemon) => Promise<void>;
  readonly latencyMs?: number;
  /** The daemon generation; the test run's default otherwise. */
  readonly dialect?: Dialect;
  /** What fae gets instead of its powers (see faulty-powers.ts). */
  readonly wrapPowers?: (powers: unknown) => unknown;
  /** The daemon's CapTP releases dropped imports (benches; see LocalDaemonOptions). */
  readonly gcImports?: boolean;
}

/**
 * Tests that are not about progress replies see none, however slow the
 * machine: a "Working on it…" would stand where they wait for an answer.
 * The progress tests set FAE_PROGRESS_AFTER_MS themselves.
 */
const QUIET_PROGRESS = harden({ FAE_PROGRESS_AFTER_MS: '3600000' });

export const startFaeInDaemon = async ({
  provider,
  env = {},
  introducedNames = {},
  prepare,
  latencyMs,
  dialect,
  wrapPowers,
  gcImports,
}: FaeHarnessOptions) => {
  const daemon = makeLocalDaemon({
    ...(latencyMs === undefined ? {} : { latencyMs }),
    ...(dialect === undefined ? {} : { dialect }),
    ...(gcImports === undefined ? {} : { gcImports }),
  });
  const host: Far = await daemon.host;
  await prepare?.(host, daemon);
  await E(host).provideGuest('fae', { introducedNames, agentName: 'profile-for-fae' });
  const logs: string[] = [];
  const controller: Far = await daemon.makeCaplet(
    (powers, context, options) =>
      startFae((wrapPowers ? Promise.resolve(wrapPowers(powers)) : powers) as Far, context as Far, {
        env: options.env,
        provider,
        write: line => logs.push(line),
      }),
    { powersName: 'profile-for-fae', resultName: 'controller-for-fae', env: { ...QUIET_PROGRESS, ...env } },
  );
  const [fae, hostDaemon]: [Far, Awaited<ReturnType<typeof makeDaemonAdapter>>] = await Promise.all([
    E(host).lookup('profile-for-fae'),
    // Tells the host's own copies apart whatever the daemon's generation.
    makeDaemonAdapter(host),
  ]);
  let lastSeen = -1n;
  /** The next message fae sends the host after the last one returned. */
  // Generous: on a machine shared by many test runs a round trip can take seconds.
  const nextFromFae = async (timeoutMs = 20_000): Promise<MessageRecord> => {
    const message = await nextMessage(
      host,
      record => record.number > lastSeen && !hostDaemon.isOwnMessage(record),
      timeoutMs,
    );
    lastSeen = message.number;
    return message;
  };
  return { daemon, host, fae, controller, logs, nextFromFae, READY_TEXT, READY_MESSAGE, names: hostDaemon.names };
};

/**
 * fae in a local daemon, stopped when the test ends, once it has said it
 * is ready; `ask` mails it from the host and resolves to the text of its
 * next message to the host.
 */
export const startReadyFae = async (t: { teardown(fn: () => unknown): void }, options: FaeHarnessOptions) => {
  const started = await startFaeInDaemon(options);
  t.teardown(() => started.daemon.stop());
  await started.nextFromFae();
  const ask = async (text: string) => {
    await E(started.host).send('fae', [text], [], []);
    return messageText(await started.nextFromFae());
  };
  return { ...started, ask };
};

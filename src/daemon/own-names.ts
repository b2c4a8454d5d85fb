// fae follows its own top-level names (followNameChanges on its guest
// powers) through one subscription, shared by whoever must know when they
// change: the tool registry (tools/ itself may be replaced) and the cache
// of sender names (a sender's name is one of these names). Top-level names
// change rarely (mail does not change them), so this costs no call per
// message. A subscription that ends or fails is made again after a growing
// pause; listeners are told of the gap, since changes may be missed in it.
import { E } from '@endo/far';
import type { GuestPowers, Ref } from './endo-types.js';
import type { Logger } from '../logging/log.js';
import { makeFollowReader } from './follow-reader.js';
import { readNameChange } from './name-changes.js';
import { DEFAULT_RETRY_MS, backoffMs, pause, type RetryMs } from './backoff.js';
import type { NameChange, OpenFollower, PetNameChange } from './name-changes.js';
import { REPORTED_ALREADY, inBackground } from '../background.js';

export interface OwnNamesListener {
  /**
   * A top-level name changed, special names included (undefined: an item
   * fae cannot read). The replay of every name on each new subscription
   * comes through here too.
   */
  readonly onChange?: (change: PetNameChange | undefined) => void;
  /** The subscription was lost: changes may go unseen until it is back. */
  readonly onLost?: () => void;
}

export interface OwnNamesWatch {
  /** Subscribes (once); later calls do nothing. */
  start(): void;
  stop(): void;
  /** Adds a listener; returns its removal. */
  listen(listener: OwnNamesListener): () => void;
  /** Whether a subscription is in place and has yielded, so changes are being seen. */
  isFollowing(): boolean;
}

export interface OwnNamesOptions {
  readonly logger: Logger;
  /** Turns the far reference into a local iterator (both generations' shapes). */
  readonly openFollower?: OpenFollower;
  /** Waits before re-subscribing: first, then doubling up to max, in ms. */
  readonly retryMs?: RetryMs;
}

export const watchOwnNames = (
  powers: Ref<GuestPowers>,
  {
    logger,
    openFollower = ref => makeFollowReader<NameChange>(ref as object),
    retryMs = DEFAULT_RETRY_MS,
  }: OwnNamesOptions,
): OwnNamesWatch => {
  const listeners = new Set<OwnNamesListener>();
  let started = false;
  let stopped = false;
  let following = false;
  let failures = 0;
  let iterator: AsyncIterator<NameChange> | undefined;

  const lose = () => {
    following = false;
    for (const listener of [...listeners]) listener.onLost?.();
  };

  const follow = async () => {
    // `any`: GuestPowers (src/daemon/endo-types.ts) does not list
    // followNameChanges; every generation's guest has it (spec §4.1).
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const reader = openFollower(E(powers as any).followNameChanges());
    iterator = reader;
    for (;;) {
      // Sequential: a follower yields one item per next().
      // eslint-disable-next-line no-await-in-loop
      const step = await reader.next();
      if (stopped) return;
      if (step.done) throw Error("the follower of fae's names ended");
      failures = 0;
      // The replay opens with the special names, so the first item shows
      // the subscription stands.
      following = true;
      const change = readNameChange(step.value, true);
      for (const listener of [...listeners]) listener.onChange?.(change);
    }
  };

  const run = () => {
    follow().catch(error => {
      if (stopped) return;
      lose();
      iterator?.return?.().catch(() => {});
      const retryInMs = backoffMs(retryMs, failures);
      failures += 1;
      logger.warn('names-follow-lost', { error, retryInMs });
      // run reports its own failures (and tries again).
      inBackground(
        pause(retryInMs).then(() => {
          if (!stopped) run();
        }),
        REPORTED_ALREADY,
      );
    });
  };

  return harden({
    start: () => {
      if (started || stopped) return;
      started = true;
      run();
    },
    stop: () => {
      if (stopped) return;
      stopped = true;
      iterator?.return?.().catch(() => {});
      lose();
    },
    listen: (listener: OwnNamesListener) => {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    isFollowing: () => following,
  });
};
harden(watchOwnNames);

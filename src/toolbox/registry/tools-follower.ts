// Following tools/ through the daemon's followNameChanges() (old spec §4.2,
// new spec §4): items `{add: name, value: {number, node, id?}}` or
// `{remove: name}`, first one `add` per name already there, then live
// changes; overwriting a name gives `remove` then `add`. The replay has no
// end marker, so on each subscription the directory is also listed once:
// the subscription has caught up when every listed name has been seen.
// A subscription that ends or fails is made again after a growing pause.
import { E } from '@endo/far';
import type { GuestPowers, Ref } from '../../daemon/endo-types.js';
import { readNameChange } from '../../daemon/name-changes.js';
import { backoffMs, pause, type RetryMs } from '../../daemon/backoff.js';
import type { NameChange, OpenFollower, PetNameChange } from '../../daemon/name-changes.js';
import { TOOLS_DIRECTORY } from '../discovered-tools.js';

export type { NameChange, OpenFollower } from '../../daemon/name-changes.js';

/** A change in tools/, with the formula id an added name now points at. */
export type ToolsChange = PetNameChange;

export interface FollowToolsOptions {
  readonly openFollower: OpenFollower;
  readonly retryMs: RetryMs;
  /** How long catching up may take before unseen listed names count as gone. */
  readonly syncTimeoutMs: number;
  readonly onSubscribed: (directory: unknown) => void;
  /** `live`: the subscription has caught up (not part of the replay). */
  readonly onChange: (change: ToolsChange, live: boolean) => void;
  /** The names present once caught up; `restored` after a lost subscription. */
  readonly onCaughtUp: (names: ReadonlySet<string>, restored: boolean) => void;
  readonly onLost: (error: unknown, retryInMs: number) => void;
  readonly isStopped: () => boolean;
}

export const followToolsDirectory = (powers: Ref<GuestPowers>, options: FollowToolsOptions) => {
  const { openFollower, retryMs, syncTimeoutMs, onSubscribed, onChange, onCaughtUp, onLost, isStopped } =
    options;
  let generation = 0;
  let failures = 0;
  let everCaughtUp = false;
  let iterator: AsyncIterator<NameChange> | undefined;
  let firstOutcome: (() => void) | undefined;
  const started = new Promise<void>(resolve => {
    firstOutcome = resolve;
  });

  const close = () => {
    iterator?.return?.().catch(() => {});
    iterator = undefined;
  };

  const subscribe = async (mine: number): Promise<void> => {
    const directory = await E(powers).lookup(TOOLS_DIRECTORY);
    if (mine !== generation) return;
    // `any`: the directory is a remote reference.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const dir = directory as any;
    const reader = openFollower(E(dir).followNameChanges());
    iterator = reader;
    onSubscribed(directory);
    // The first next() goes out before the listing, so the replay starts
    // no later than the listing is taken.
    let pending = reader.next();
    const listed = new Set<string>(await E(dir).list());
    if (mine !== generation) return;
    const seen = new Set<string>();
    const present = new Set<string>();
    let caughtUp = false;
    const catchUp = () => {
      if (caughtUp) return;
      caughtUp = true;
      failures = 0;
      onCaughtUp(present, everCaughtUp);
      everCaughtUp = true;
      firstOutcome?.();
    };
    const check = () => {
      if ([...listed].every(name => seen.has(name))) catchUp();
    };
    check();
    // A listed name removed before the replay began never shows up.
    const bound = setTimeout(catchUp, syncTimeoutMs);
    bound.unref?.();
    try {
      for (;;) {
        // Sequential: a follower yields one item per next().
        // eslint-disable-next-line no-await-in-loop
        const step = await pending;
        if (mine !== generation) return;
        if (step.done) throw Error('the tools/ follower ended');
        const change = readNameChange(step.value);
        if (change !== undefined) {
          if ('add' in change) {
            seen.add(change.add);
            present.add(change.add);
          } else {
            present.delete(change.remove);
          }
          onChange(change, caughtUp);
          if (!caughtUp) check();
        }
        pending = reader.next();
      }
    } finally {
      clearTimeout(bound);
    }
  };

  const run = (delayMs: number) => {
    generation += 1;
    const mine = generation;
    close();
    (delayMs > 0 ? pause(delayMs) : Promise.resolve())
      .then(() => (mine === generation && !isStopped() ? subscribe(mine) : undefined))
      .catch(error => {
        if (mine !== generation || isStopped()) return;
        const retryInMs = backoffMs(retryMs, failures);
        failures += 1;
        onLost(error, retryInMs);
        firstOutcome?.();
        run(retryInMs);
      });
  };

  return harden({
    start: () => {
      if (generation === 0) run(0);
      return started;
    },
    /** tools/ itself changed: drop this subscription and make a new one. */
    resubscribe: () => {
      if (isStopped()) return;
      onLost(Error('tools/ itself was replaced'), 0);
      run(0);
    },
    stop: () => {
      generation += 1;
      close();
    },
  });
};
harden(followToolsDirectory);

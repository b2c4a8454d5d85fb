// tools/ itself can be replaced wholesale: makeDirectory always binds a new,
// empty directory (spec §4.2), and a host or fae's own startup may do that.
// A follower of the old directory would then report nothing more, so fae
// also follows its own top-level names, only to see the `tools` binding
// come to name another formula (or go); the registry then follows the
// directory that is there now. Top-level names change rarely (mail does
// not change them), so this costs no call per message.
import { E } from '@endo/far';
import type { GuestPowers, Ref } from '../daemon/endo-types.js';
import type { Logger } from '../logging/log.js';
import { TOOLS_DIRECTORY } from './tools.js';
import { readNameChange } from './tools-follower.js';
import type { NameChange, OpenFollower } from './tools-follower.js';

export interface WatchToolsBindingOptions {
  readonly openFollower: OpenFollower;
  readonly retryMs: { readonly first: number; readonly max: number };
  readonly logger: Logger;
  /** `tools` now names another formula, or nothing. */
  readonly onRebound: () => void;
}

const pause = (ms: number) =>
  new Promise<void>(resolve => {
    const timer = setTimeout(resolve, ms);
    timer.unref?.();
  });

export const watchToolsBinding = (
  powers: Ref<GuestPowers>,
  { openFollower, retryMs, logger, onRebound }: WatchToolsBindingOptions,
) => {
  let stopped = false;
  let failures = 0;
  // The id `tools` named when first seen; undefined until then.
  let known: string | null | undefined;
  let iterator: AsyncIterator<NameChange> | undefined;

  const follow = async () => {
    // `any`: GuestPowers (src/daemon/endo-types.ts) does not list
    // followNameChanges yet; every generation's guest has it (spec §4.1).
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const reader = openFollower(E(powers as any).followNameChanges());
    iterator = reader;
    for (;;) {
      // Sequential: a follower yields one item per next().
      // eslint-disable-next-line no-await-in-loop
      const step = await reader.next();
      if (stopped) return;
      if (step.done) throw Error('the follower of fae\'s names ended');
      failures = 0;
      const change = readNameChange(step.value);
      if (change === undefined) continue;
      if ('add' in change && change.add === TOOLS_DIRECTORY) {
        if (known !== undefined && known !== change.id) onRebound();
        known = change.id;
      } else if ('remove' in change && change.remove === TOOLS_DIRECTORY) {
        known = null;
        onRebound();
      }
    }
  };

  const run = () => {
    follow().catch(error => {
      if (stopped) return;
      iterator?.return?.().catch(() => {});
      const retryInMs = Math.min(retryMs.max, retryMs.first * 2 ** failures);
      failures += 1;
      logger.warn('names-follow-lost', { error, retryInMs });
      // The replay after a gap gives the binding as it is now; a change
      // missed meanwhile shows as another id.
      void pause(retryInMs).then(() => {
        if (!stopped) run();
      });
    });
  };

  return harden({
    start: () => run(),
    stop: () => {
      stopped = true;
      iterator?.return?.().catch(() => {});
    },
  });
};
harden(watchToolsBinding);

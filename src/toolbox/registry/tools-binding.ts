// tools/ itself can be replaced wholesale: makeDirectory always binds a new,
// empty directory (spec §4.2), and a host or fae's own startup may do that.
// A follower of the old directory would then report nothing more, so fae
// also watches its own top-level names (src/daemon/own-names.ts), only to
// see the `tools` binding come to name another formula (or go); the
// registry then follows the directory that is there now.
import type { OwnNamesWatch } from '../../daemon/own-names.js';
import { TOOLS_DIRECTORY } from '../discovered-tools.js';

export const watchToolsBinding = (ownNames: OwnNamesWatch, onRebound: () => void) => {
  // The id `tools` named when first seen; undefined until then.
  let known: string | null | undefined;
  let unlisten: (() => void) | undefined;
  return harden({
    start: () => {
      unlisten ??= ownNames.listen({
        onChange: change => {
          if (change === undefined) return;
          if ('add' in change && change.add === TOOLS_DIRECTORY) {
            // The replay after a gap gives the binding as it is now; a
            // change missed meanwhile shows as another id.
            if (known !== undefined && known !== change.id) onRebound();
            known = change.id;
          } else if ('remove' in change && change.remove === TOOLS_DIRECTORY) {
            known = null;
            onRebound();
          }
        },
      });
      ownNames.start();
    },
    stop: () => {
      unlisten?.();
      unlisten = undefined;
    },
  });
};
harden(watchToolsBinding);

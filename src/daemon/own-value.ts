// A value the host keeps in fae's directory for fae to read (the budget,
// the approval policy), read at once and again whenever its name changes:
// fae follows its own top-level names (own-names.ts), so this costs no call
// per turn. A value fae cannot read counts as none.
import { E } from '@endo/far';
import type { GuestPowers, Ref } from './endo-types.js';
import type { OwnNamesWatch } from './own-names.js';
import { REPORTED_ALREADY, inBackground } from '../background.js';

/**
 * Calls `use` with the value named `name` in fae's directory (undefined
 * when there is none), now and after every change of that name, or of
 * the watch itself. Returns the end of the watching.
 */
export const followOwnValue = (
  powers: Ref<GuestPowers>,
  name: string,
  ownNames: OwnNamesWatch,
  use: (value: unknown) => void,
) => {
  // Asked whether it is there first: a look-up of a missing name is an error in the daemon's log.
  const read = () =>
    E(powers)
      .has(name)
      .then(there => (there ? E(powers).lookup(name) : undefined))
      .then(
        value => use(value),
        () => use(undefined),
      );
  return ownNames.listen({
    onChange: change => {
      // read counts a failure as no value.
      if (change === undefined || ('add' in change ? change.add : change.remove) === name) inBackground(read(), REPORTED_ALREADY);
    },
    onLost: () => inBackground(read(), REPORTED_ALREADY),
  });
};
harden(followOwnValue);

// Name hubs backed by a pet store: a plain directory, and the "pet sitter"
// that overlays an agent's special names (spec §1.3) on its pet store.
import { q } from '@endo/errors';
import type { Hub, Kernel } from './kernel.js';
import type { PetStore } from './pet-store.js';
import { assertPetName, isSpecialName } from './names.js';

const unknownPetName = (name: string) => TypeError(`Unknown pet name: ${q(name)}`);

/** lookup for a hub: the value named, or Unknown pet name. */
const lookupBy =
  (kernel: Kernel, identify: (name: string) => string | undefined) => (name: string) => {
    const id = identify(name);
    if (id === undefined) throw unknownPetName(name);
    return kernel.provide(id);
  };

export const makeStoreHub = (kernel: Kernel, store: PetStore): Hub => {
  const identify = (name: string) => {
    assertPetName(name);
    return store.identify(name);
  };
  return harden({
    has: (name: string) => identify(name) !== undefined,
    identify,
    lookup: lookupBy(kernel, identify),
    list: () => store.list(),
    reverseIdentify: (id: string) => store.reverseIdentify(id),
    write: (name: string, id: string) => {
      assertPetName(name);
      store.write(name, id);
    },
    remove: (name: string) => {
      assertPetName(name);
      store.remove(name);
    },
    rename: (from: string, to: string) => {
      assertPetName(from);
      assertPetName(to);
      store.rename(from, to);
    },
    feed: harden({ specials: {}, store }),
  });
};
harden(makeStoreHub);

/**
 * @param specials special name → id, in the order error messages list them
 */
export const makePetSitter = (
  kernel: Kernel,
  store: PetStore,
  specials: Readonly<Record<string, string>>,
): Hub => {
  const directory = makeStoreHub(kernel, store);
  const isSpecial = (name: string) => {
    if (!isSpecialName(name)) return false;
    if (!Object.hasOwn(specials, name)) {
      throw Error(
        `Invalid pet name ${q(name)} and not one of ${Object.keys(specials).join(', ')}`,
      );
    }
    return true;
  };
  const identify = (name: string) =>
    isSpecial(name) ? specials[name] : (directory.identify(name) as string | undefined);
  return harden({
    has: (name: string) => identify(name) !== undefined,
    identify,
    lookup: lookupBy(kernel, identify),
    list: () => [...Object.keys(specials).sort(), ...store.list()],
    reverseIdentify: (id: string) => [
      ...store.reverseIdentify(id),
      ...Object.keys(specials).filter(name => specials[name] === id),
    ],
    write: directory.write,
    remove: directory.remove,
    rename: directory.rename,
    feed: harden({ specials, store }),
  });
};
harden(makePetSitter);

// Name hubs backed by a pet store: a plain directory, and the "pet sitter"
// that overlays an agent's special names (spec §1.3; next spec §1) on its
// pet store.
import { q } from '@endo/errors';
import type { Hub, Kernel } from '../kernel/kernel.js';
import type { PetStore } from './pet-store.js';

const unknownPetName = (name: string) => TypeError(`Unknown pet name: ${q(name)}`);

/** lookup for a hub: the value named, or Unknown pet name. */
const lookupBy =
  (kernel: Kernel, identify: (name: string) => string | undefined) => (name: string) => {
    const id = identify(name);
    if (id === undefined) throw unknownPetName(name);
    return kernel.provide(id);
  };

export const makeStoreHub = (kernel: Kernel, store: PetStore): Hub => {
  const { assertPetName } = kernel.rules;
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
  const { isPetName, isSpecialName } = kernel.rules;
  const notOneOf = (name: string) =>
    Error(`Invalid pet name ${q(name)} and not one of ${Object.keys(specials).join(', ')}`);
  // February: an unknown special-looking name throws, from has() too.
  const febIdentify = (name: string) => {
    if (!isSpecialName(name)) return directory.identify(name) as string | undefined;
    if (!Object.hasOwn(specials, name)) throw notOneOf(name);
    return specials[name];
  };
  // May and August: identify() says "not one of"; has() asks the store,
  // which rejects any name that is not a pet name.
  const newIdentify = (name: string) => {
    if (Object.hasOwn(specials, name)) return specials[name];
    if (!isPetName(name)) throw notOneOf(name);
    return directory.identify(name) as string | undefined;
  };
  const isFeb = kernel.dialect === 'feb';
  const identify = isFeb ? febIdentify : newIdentify;
  const has = isFeb
    ? (name: string) => identify(name) !== undefined
    : (name: string) => Object.hasOwn(specials, name) || (directory.has(name) as boolean);
  return harden({
    has,
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

// Stored values (storeValue, spec §4.2) are serialised as smallcaps with
// the formula ids of the remotables they hold; reading makes a fresh copy.
import { makeMarshal } from '@endo/marshal';
import { q } from '@endo/errors';
import type { Kernel } from './kernel.js';

export const makeValueMarshal = (kernel: Kernel) =>
  makeMarshal(
    (value: unknown) => {
      const id = kernel.idOf(value);
      if (id === undefined) throw Error(`No corresponding formula for ${q(value)}`);
      return id;
    },
    (slot: string) => kernel.provide(slot),
    { serializeBodyFormat: 'smallcaps', errorTagging: 'off' },
  );
harden(makeValueMarshal);

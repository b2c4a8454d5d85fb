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

/**
 * A stored value, read afresh: the capabilities it holds are provided
 * first (a caplet's value may still be coming), then the data is decoded
 * around them, as the daemon reads a marshal formula.
 */
export const readStoredValue = async (kernel: Kernel, { body, slots }: { readonly body: string; readonly slots: readonly string[] }) => {
  const values = await Promise.all(slots.map(slot => kernel.provide(slot)));
  const reader = makeMarshal(undefined, (slot: string) => values[slots.indexOf(slot)], { serializeBodyFormat: 'smallcaps' });
  return reader.fromCapData({ body, slots: [...slots] });
};
harden(readStoredValue);

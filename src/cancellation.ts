// The daemon's context is a remote object: its whenCancelled() promise
// never fulfils and rejects with the reason when the caplet is cancelled.
// Turned here into a promise that resolves with that reason, which is the
// shape Promise.race wants.
import { E } from '@endo/far';
import type { CapletContext, Ref } from './endo-types.js';

export const whenCancelled = (context: Ref<CapletContext>): Promise<Error> =>
  E(context)
    .whenCancelled()
    .then(
      () => Error('cancelled'),
      reason => (reason instanceof Error ? reason : Error(String(reason))),
    );
harden(whenCancelled);

// What runs on the worker side of a connection: it imports a caplet
// module and calls its make(powers, context, { env }), like the daemon's
// worker (spec §2.2). Only far references reach it through CapTP.
import { Far } from '@endo/far';
import { pathToFileURL } from 'node:url';
import { q } from '@endo/errors';
import type { MakeCaplet } from './types.js';

const toUrl = (specifier: string) =>
  specifier.startsWith('file://') ? specifier : pathToFileURL(specifier).href;

/**
 * @param localMakes in-process make functions (LocalDaemon.makeCaplet), by key
 */
export const makeWorkerBootstrap = (localMakes: ReadonlyMap<string, MakeCaplet>) =>
  Far('EndoWorker', {
    async makeUnconfined(
      specifier: string,
      powers: Promise<object>,
      context: object,
      env: Readonly<Record<string, string>>,
    ) {
      const namespace = (await import(toUrl(specifier))) as { make?: unknown };
      if (typeof namespace.make !== 'function') {
        throw TypeError(`Module ${q(specifier)} does not export a make function`);
      }
      return (namespace.make as MakeCaplet)(powers, context, harden({ env }));
    },
    async makeLocal(key: string, powers: Promise<object>, context: object, env: Readonly<Record<string, string>>) {
      const make = localMakes.get(key);
      if (make === undefined) throw Error(`No in-process caplet ${q(key)}`);
      return make(powers, context, harden({ env }));
    },
  });
harden(makeWorkerBootstrap);

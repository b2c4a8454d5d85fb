// What runs on the worker side of a connection: it imports a caplet
// module and calls its make(powers, context, { env }), like the daemon's
// worker (spec §2.2). Only far references reach it through CapTP.
import { E, Far } from '@endo/far';
import { makeExo } from '@endo/exo';
import { M } from '@endo/patterns';
import { pathToFileURL } from 'node:url';
import { q } from '@endo/errors';
import type { MakeCaplet } from '../types.js';

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
    /**
     * Evaluates `source` in a compartment of its own whose globals are the
     * endowments, and E, Far, M and makeExo, as the daemon's workers give
     * evaluated code.
     */
    evaluate(source: string, codeNames: readonly string[], values: readonly unknown[]) {
      const endowments = Object.fromEntries(codeNames.map((name, i) => [name, values[i]]));
      const compartment = new Compartment({ __options__: true, globals: { E, Far, M, makeExo, ...endowments } });
      return compartment.evaluate(source);
    },
    async makeLocal(key: string, powers: Promise<object>, context: object, env: Readonly<Record<string, string>>) {
      const make = localMakes.get(key);
      if (make === undefined) throw Error(`No in-process caplet ${q(key)}`);
      return make(powers, context, harden({ env }));
    },
  });
harden(makeWorkerBootstrap);

// A module resolve hook for the upstream side-by-side (upstream.ts):
// upstream fae takes its provider from `createProvider(env)` of lal's
// providers, with no way to hand it one, so its import of that module is
// answered with the bench's in-process model instead (upstream-model.ts).
// Only that one import, and only from upstream fae's own files; every
// other module of the checkout is upstream's own. Registered by
// upstream-fae.ts with module.register; it runs in Node's hooks thread.
import type { InitializeHook, ResolveHook } from 'node:module';

export interface Redirect {
  /** The specifier to answer (upstream fae's import of lal's providers). */
  readonly specifier: string;
  /** Only imports from modules under this URL. */
  readonly within: string;
  /** What it resolves to instead. */
  readonly url: string;
}

let redirect: Redirect | undefined;

export const initialize: InitializeHook<Redirect> = data => {
  redirect = data;
};

export const resolve: ResolveHook = (specifier, context, nextResolve) => {
  if (redirect !== undefined && specifier === redirect.specifier && context.parentURL?.startsWith(redirect.within)) {
    return { url: redirect.url, shortCircuit: true };
  }
  return nextResolve(specifier, context);
};

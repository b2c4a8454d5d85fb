// Upstream fae (endojs/endo's packages/fae, February 2026), for the
// side-by-side of upstream.ts. Nothing of upstream is in this repository:
// FAE_BENCH_UPSTREAM names a checkout of endojs/endo at f0a46042a with its
// dependencies installed (`corepack yarn workspaces focus @endo/fae`),
// and its agent is imported from there, as the daemon would import it,
// with only its provider replaced by the bench's model (upstream-hooks.ts).
import { existsSync } from 'node:fs';
import { register } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Redirect } from './upstream-hooks.js';

export const UPSTREAM_ENV = 'FAE_BENCH_UPSTREAM';
export const UPSTREAM_COMMIT = 'f0a46042a';

/** Upstream's caplet entry point, `make(guestPowers, context, { env })`. */
export type UpstreamMake = (powers: unknown, context: unknown, options: { env: Record<string, string | undefined> }) => unknown;

/** How to make a checkout the bench can use. */
export const UPSTREAM_HOW_TO = [
  `${UPSTREAM_ENV}=/path/to/endo, a checkout of endojs/endo at ${UPSTREAM_COMMIT} outside this repository, e.g.`,
  `  git --git-dir=<endo git dir> worktree add --detach /tmp/endo-feb ${UPSTREAM_COMMIT}`,
  '  (cd /tmp/endo-feb && corepack yarn workspaces focus @endo/fae)',
  `  ${UPSTREAM_ENV}=/tmp/endo-feb npm run bench -- upstream`,
].join('\n');

let loaded: Promise<UpstreamMake> | undefined;

/** Upstream fae's `make`, from the checkout at `root` (loaded once). */
export const loadUpstreamFae = (root: string): Promise<UpstreamMake> => {
  loaded ??= (async () => {
    const faeDir = join(root, 'packages', 'fae');
    const agent = join(faeDir, 'agent.js');
    if (!existsSync(agent) || !existsSync(join(root, 'node_modules', '@endo', 'lal'))) {
      throw Error(`${UPSTREAM_ENV}=${root} holds no installed upstream fae (packages/fae/agent.js and node_modules/@endo/lal).\n${UPSTREAM_HOW_TO}`);
    }
    const redirect: Redirect = {
      specifier: '@endo/lal/providers/index.js',
      within: pathToFileURL(`${faeDir}/`).href,
      url: new URL('./upstream-model.js', import.meta.url).href,
    };
    register(new URL('./upstream-hooks.js', import.meta.url), { data: redirect });
    const module = (await import(pathToFileURL(agent).href)) as { make: UpstreamMake };
    return module.make;
  })();
  return loaded;
};

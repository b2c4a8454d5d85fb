// What every guest and host exo is made with (agent.ts, host.ts): the
// daemon's shared parts, handed down by daemon.ts.
import type { Kernel } from './kernel/kernel.js';
import type { Instrument } from './kernel/instrument.js';
import type { Formulator } from './kernel/formulate.js';
import type { CapletRunner } from './workers/caplets.js';
import type { PostOffice } from './mail/post-office.js';
import type { FollowOut } from './follow/far-follower.js';

export interface AgentPowers {
  readonly kernel: Kernel;
  readonly instrument: Instrument;
  readonly formulator: Formulator;
  readonly post: PostOffice;
  readonly runner: CapletRunner;
  /** Caplets made without a result name: kept alive as if pinned. */
  readonly transientRoots: Set<string>;
  /** Hands out follow* results in the dialect's form. */
  readonly follow: FollowOut;
}

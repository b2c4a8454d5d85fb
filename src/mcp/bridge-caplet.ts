// The bridge caplet: `setup-mcp-tools` makes it in the host's inventory
// (`mcp-<name>-bridge`) with the server's settings as its env and a small
// guest of its own as its powers, where it keeps what must survive a
// restart (bridge-state.ts). The daemon makes it again after a restart;
// it connects on first use.
import { E } from '@endo/far';
import { makeLogger } from '../logging/log.js';
import { makeLearningRedactor } from '../logging/redact.js';
import type { CapletOptions } from '../tool-kit/make-fae-tool.js';
import { readServerConfig } from './server-config.js';
import { makeSession } from './session.js';
import { makeMcpBridge } from './bridge.js';
import { makeStateKeeper } from './bridge-state.js';

// `any`: the daemon's powers and context are remote references.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

/** `write` takes the bridge's log lines (console.log in the daemon's worker). */
export const makeBridgeCaplet =
  (write?: (line: string) => void) =>
  (powers: Far, context: Far, { env = {} }: CapletOptions = {}) => {
    const config = readServerConfig(env);
    const { redact, learn } = makeLearningRedactor({});
    const logger = makeLogger({ redact, prefix: `[mcp ${config.name}]`, ...(write === undefined ? {} : { write }) });
    let closeSession: () => Promise<void> = async () => {};
    const bridge = makeMcpBridge({
      config,
      logger,
      keeper: makeStateKeeper(powers),
      openSession: hooks => {
        const session = makeSession({ config, logger, redact, learnSecret: token => learn({ LAL_AUTH_TOKEN: token }), hooks });
        closeSession = session.close;
        return session;
      },
    });
    // A cancelled bridge (stopped, collected, or its daemon restarting)
    // stops its stdio server rather than leaving it behind.
    if (context !== undefined) {
      E(context)
        .whenCancelled()
        .then(() => closeSession(), () => closeSession());
    }
    return bridge;
  };
harden(makeBridgeCaplet);

export const make = makeBridgeCaplet();
harden(make);

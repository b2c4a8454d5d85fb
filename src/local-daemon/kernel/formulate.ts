// Creating formulas (the daemon's "formulate*"): directories, guests and
// hosts with their handles, pet stores, mailboxes and special-name tables
// (spec §1.3; next spec §1: each generation's list and order).
import type { AgentFormula, Kernel } from './kernel.js';
import { makePetStore } from '../names/pet-store.js';
import { makeMailbox } from '../mail/mailbox-state.js';

/** Formulas every host shares: the daemon, its main worker, least authority. */
export interface SharedFormulas {
  readonly endo: string;
  readonly main: string;
  /** May and August: the shared Node worker, `@node`. */
  readonly node: string;
  readonly none: string;
}

export interface Formulator {
  readonly shared: SharedFormulas;
  directory(): string;
  guest(hostHandle: string): { agentId: string; handleId: string };
  host(parentHandle?: string): { agentId: string; handleId: string };
}


interface AgentIds {
  readonly agentId: string;
  readonly handleId: string;
  readonly hostHandle: string;
  readonly mailHubId: string;
}

export const makeFormulator = (kernel: Kernel): Formulator => {
  const shared = harden({
    endo: kernel.formulate({ type: 'endo' }),
    main: kernel.formulate({ type: 'worker' }),
    node: kernel.formulate({ type: 'worker' }),
    none: kernel.formulate({ type: 'least-authority' }),
  });

  const directory = () => kernel.formulate({ type: 'directory', store: makePetStore(kernel.markDirty) });

  const agent = (
    type: 'host' | 'guest',
    hostHandle: string | undefined,
    makeSpecials: (ids: AgentIds) => Record<string, string>,
  ) => {
    const agentId = kernel.mintId();
    const handleId = kernel.formulate({ type: 'handle', agent: agentId });
    const mailHubId = kernel.formulate({ type: 'mail-hub', agent: agentId });
    const ownHostHandle = hostHandle ?? handleId;
    const formula: AgentFormula = {
      type,
      handle: handleId,
      hostHandle: ownHostHandle,
      store: makePetStore(kernel.markDirty),
      specials: harden(makeSpecials({ agentId, handleId, hostHandle: ownHostHandle, mailHubId })),
      mailbox: makeMailbox(kernel.markDirty, kernel.dialect === 'feb', kernel.dialect === 'aug'),
    };
    kernel.register(agentId, formula);
    return harden({ agentId, handleId });
  };

  // The order here is the order error messages list the special names in.
  const { dialect } = kernel;
  const guest = (hostHandle: string) =>
    agent('guest', hostHandle, (ids): Record<string, string> =>
      dialect === 'feb'
        ? { AGENT: ids.agentId, SELF: ids.handleId, HOST: ids.hostHandle, MAIL: ids.mailHubId }
        : {
            '@agent': ids.agentId,
            '@self': ids.handleId,
            '@host': ids.hostHandle,
            '@mail': ids.mailHubId,
            // Each guest's networks directory is its own, and starts empty.
            '@nets': directory(),
            ...(dialect === 'aug' ? { '@planes': directory() } : {}),
          },
    );

  const febHost = (ids: AgentIds) => ({
    AGENT: ids.agentId,
    SELF: ids.handleId,
    HOST: ids.hostHandle,
    MAIN: shared.main,
    ENDO: shared.endo,
    NETS: directory(),
    PINS: directory(),
    INFO: kernel.formulate({ type: 'pet-inspector' }),
    NONE: shared.none,
    MAIL: ids.mailHubId,
    // A platform name the daemon adds under Node.
    APPS: directory(),
  });
  const mayHost = (ids: AgentIds) => ({
    '@agent': ids.agentId,
    '@self': ids.handleId,
    '@host': ids.hostHandle,
    '@main': shared.main,
    '@node': shared.node,
    '@endo': shared.endo,
    '@nets': directory(),
    '@pins': directory(),
    '@info': kernel.formulate({ type: 'pet-inspector' }),
    '@none': shared.none,
    '@mail': ids.mailHubId,
  });
  const augHost = (ids: AgentIds) => ({
    '@agent': ids.agentId,
    '@self': ids.handleId,
    '@host': ids.hostHandle,
    '@main': shared.main,
    '@node': shared.node,
    '@registry': directory(),
    '@endo': shared.endo,
    '@nets': directory(),
    '@planes': directory(),
    '@pins': directory(),
    '@none': shared.none,
    '@mail': ids.mailHubId,
  });
  const hostSpecials = { feb: febHost, may: mayHost, aug: augHost }[dialect];
  const host = (parentHandle?: string) => agent('host', parentHandle, hostSpecials);

  return harden({ shared, directory, guest, host });
};
harden(makeFormulator);

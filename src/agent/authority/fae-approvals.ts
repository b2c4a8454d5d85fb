// fae's approvals put together (issue 22): the policy in force (FAE_APPROVE,
// or the host's value, followed), the standing grants, and, once the
// daemon is known, the channel to the host, the gate each turn passes
// before a tool call, and the gate before anything fae holds is handed
// over (approval-gives.ts).
// Until then nothing can need approval, as no turn runs.
import type { GuestPowers, Ref } from '../../daemon/endo-types.js';
import type { DaemonAdapter } from '../../daemon/adapter.js';
import type { OwnNamesWatch } from '../../daemon/own-names.js';
import { followOwnValue } from '../../daemon/own-value.js';
import type { Logger } from '../../logging/log.js';
import type { Redact } from '../../logging/redact.js';
import type { FaeConfig } from '../config.js';
import type { FaeTool } from '../../toolbox/discovered-tools.js';
import type { FormKind, HostForms } from '../host/host-forms.js';
import { POLICY_NAME, makeApprovalPolicyHolder } from './approval-policy.js';
import { makeApprovalGrants } from './approval-grants.js';
import { makeApprovalChannel, type ApprovalChannel } from './approval-channel.js';
import { makeApprovals, type Approvals } from './approvals.js';
import { makeHostWait } from './approval-wait.js';
import { makeGiveGate, type GiveGateOptions } from './approval-gives.js';
import { makeGivenBy } from './given-by.js';
import { makeApprovedCalls } from './approved-calls.js';
import { bestEffort } from '../best-effort.js';

export const makeFaeApprovals = ({
  config,
  powers,
  logger,
  redact,
  ownNames,
  tellHost,
  trusts,
  giverOf,
  namedByHost,
}: {
  /** The correspondent the host named so (/name), if any. */
  readonly namedByHost: (name: string) => string | undefined;
  readonly trusts: (path: readonly string[]) => boolean;
  /** Who gave fae a capability it kept from its mail (adopted-from.ts), if a correspondent did. */
  readonly giverOf: (id: string) => string | undefined;
  readonly config: FaeConfig;
  readonly powers: Ref<GuestPowers>;
  readonly logger: Logger;
  readonly redact: Redact;
  readonly ownNames: OwnNamesWatch;
  readonly tellHost: (text: string) => Promise<void>;
}) => {
  const policy = makeApprovalPolicyHolder({ fromEnv: config.approvalPolicy, logger, tellHost });
  // Read again whenever the host changes it: no call per turn.
  followOwnValue(powers, POLICY_NAME, ownNames, policy.useValue);
  const grants = makeApprovalGrants({ powers, logger });
  const approvedCalls = makeApprovedCalls({ powers, logger });
  let channel: ApprovalChannel | undefined;
  let gate: Approvals | undefined;
  return harden({
    /** Once the daemon and fae's forms are known, before any turn. */
    start: async (
      daemon: DaemonAdapter,
      forms: HostForms,
      {
        dismiss,
        reviewed,
        nameRecipient,
      }: {
        readonly dismiss: (number: bigint) => Promise<boolean>;
        readonly reviewed: (tool: FaeTool | undefined) => boolean;
        readonly nameRecipient: GiveGateOptions['nameRecipient'];
      },
    ) => {
      channel = makeApprovalChannel({ daemon, powers, forms, logger, tellHost, dismiss });
      const hostWait = makeHostWait({ channel, timeoutMs: config.approvalTimeoutMs });
      gate = makeApprovals({
        ...{ powers, policy, grants, channel, hostWait, logger, redact, tellHost, trusts, approvedCalls, namedByHost },
        // evaluate: the host reviews every call; on February the daemon asks it.
        reviewed: harden({ is: reviewed, byDaemon: daemon.reviewsEvaluation }),
      });
      const noted = makeGivenBy(powers, { mailPath: daemon.mailPath });
      // Given by the recipient: as kept from its mail (noted for good), or attached lately (in memory).
      const givenBy = harden({ gave: async (who: string, id: string) => giverOf(id) === who || noted.gave(who, id) });
      const gives = harden({
        gate: makeGiveGate({ grants, hostWait, channel, givenBy, logger, tellHost, nameRecipient }),
        note: noted.note,
      });
      await Promise.all([
        bestEffort(logger, 'approval-grants', () => grants.start(), undefined),
        bestEffort(logger, 'approved-calls', () => approvedCalls.start(), undefined),
      ]);
      return harden({ channel, approvals: gate, gives });
    },
    /** The kinds of form whose late answers fae takes: an approval form's. */
    kinds: (): readonly FormKind[] => (channel === undefined ? [] : [channel.kind]),
    /** fae's own copies of its approval requests, which no tool sees. */
    hides: (number: bigint) => channel?.hides(number) ?? false,
    status: () =>
      gate?.status() ?? harden({ policy: policy.current().text, policyFrom: policy.source(), grants: grants.list() }),
    /** Revokes grant `number`; resolves whether there was one. */
    revoke: async (number: number) => (await grants.revoke(number)) !== undefined,
  });
};
harden(makeFaeApprovals);
export type FaeApprovals = ReturnType<typeof makeFaeApprovals>;
/** The gate before a hand-over, and what notes who gave fae what. */
export type Gives = Awaited<ReturnType<FaeApprovals['start']>>['gives'];

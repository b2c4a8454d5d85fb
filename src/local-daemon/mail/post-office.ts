// The daemon-wide mail plumbing every agent shares (mail.ts, mail-edit.ts,
// mail-requests.ts, evaluation.ts): pending requests and the recipient's inbox.
import { q } from '@endo/errors';
import type { Kernel } from '../kernel/kernel.js';
import type { Mailbox } from './mailbox-state.js';
import type { FollowOut } from '../follow/far-follower.js';

/** A pending request, shared by both copies of the request message. */
export interface PendingRequest {
  resolveWithId(id: string): void;
  reject(reason: string): void;
}

/** Daemon-wide mail plumbing shared by every agent. */
export interface PostOffice {
  readonly requests: Map<string, PendingRequest>;
  readonly follow: FollowOut;
}

/** The inbox behind a recipient id: a handle's agent, or an agent itself. */
export const mailboxFor = (kernel: Kernel, id: string): { agentId: string; mailbox: Mailbox } => {
  const formula = kernel.formulas.get(id);
  const agentId = formula?.type === 'handle' ? formula.agent : id;
  const agent = kernel.formulas.get(agentId);
  if (agent === undefined || (agent.type !== 'host' && agent.type !== 'guest')) {
    throw Error(`Formula ${q(id)} is not a mail recipient`);
  }
  return { agentId, mailbox: agent.mailbox };
};
harden(mailboxFor);

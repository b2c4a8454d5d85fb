// Handing a capability away is consequential: whoever holds one can use it
// for as long as it exists. The built-ins ask this gate before anything
// fae holds leaves it (sealed-powers.ts: attachments, a request's answer,
// a copy into someone else's directory), and it lets it go only
//   - to the host, who holds everything fae holds already;
//   - back to whoever gave it (given-by.ts);
//   - under a standing grant the host gave for that capability and that
//     recipient, both by id (approval-grants.ts);
//   - or once the host approves, having read what goes to whom.
// Otherwise the built-in fails with the reason, which the model reads.
// Every decision is logged, as the tool calls' are.
import type { Logger } from '../../logging/log.js';
import type { Give, Recipient } from '../../toolbox/built-ins/turn-scope.js';
import type { ApprovalGrants } from './approval-grants.js';
import type { ApprovalChannel } from './approval-channel.js';
import type { HostWait, WaitingTurn } from './approval-wait.js';
import type { ApprovalTurn } from './approvals.js';
import { readDecision } from './approval-decision.js';
import { giveApprovalText } from './approval-text.js';
import { makeRequestTags } from './request-tags.js';
import { senderWord } from './sender-names.js';
import type { GivenBy } from './given-by.js';

export interface GiveAsk extends WaitingTurn {
  readonly give: Give;
  readonly turn: ApprovalTurn;
}

export interface GiveGateOptions {
  readonly grants: ApprovalGrants;
  readonly hostWait: HostWait;
  readonly channel: ApprovalChannel;
  /** Whether a correspondent gave fae a capability (given-by.ts, adopted-from.ts). */
  readonly givenBy: Pick<GivenBy, 'gave'>;
  readonly logger: Logger;
  readonly tellHost: (text: string) => Promise<void>;
  /** How the host knows a recipient (a name the model cannot write, or an unnamed label). */
  readonly nameRecipient: (to: Recipient) => Promise<string>;
}

/** A short tag for each request (approvals.ts has its own for tool calls). */

const refusal = (what: string, why: string) =>
  Error(`${what} was not handed over: ${why}. Do not try it again in this turn; go on without it, or tell the sender.`);

export const makeGiveGate = ({ grants, hostWait, channel, givenBy, logger, tellHost, nameRecipient }: GiveGateOptions) => {
  const tagOf = makeRequestTags();
  const audit = (ask: GiveAsk, recipient: string, decision: string, by: string, started: number, reason = '') =>
    logger.event('give', {
      message: ask.turn.message,
      from: ask.turn.sender,
      how: ask.give.how,
      items: ask.give.items.map(item => item.shown).join(', '),
      to: recipient,
      decision,
      by,
      waitedMs: Date.now() - started,
      ...(reason === '' ? {} : { reason }),
    });

  /** The host's answer, as a decision: resolves to let it go, or rejects with the refusal. */
  const askHost = async (ask: GiveAsk, pending: Give['items'], recipient: string, started: number) => {
    const { give, turn } = ask;
    const what = pending.map(item => item.shown).join(', ');
    const word = senderWord(recipient);
    const choices = harden({ always: `from now on what is named here may go to ${word} without asking you` });
    const text = giveApprovalText(
      { how: give.how, items: pending.map(item => item.shown), recipient, asker: turn.sender, askerIsHost: turn.fromHost, about: turn.about, tag: tagOf(turn.messageKey, `${give.how}\n${recipient}\n${what}`) },
      { waitText: hostWait.waitText, answering: channel.answering(choices) },
    );
    const outcome = await hostWait.wait(text, choices, `give ${what}`, ask);
    if (outcome.kind === 'abandoned') {
      audit(ask, recipient, 'abandoned', 'cancellation', started);
      throw outcome.error;
    }
    if (outcome.kind === 'timeout') {
      audit(ask, recipient, 'denied', 'timeout', started);
      throw refusal(what, `the host did not answer within ${hostWait.waitText}`);
    }
    if (outcome.kind === 'failed') {
      audit(ask, recipient, 'denied', 'failure', started);
      throw refusal(what, "the host's approval could not be asked for");
    }
    const reason = outcome.answer.reason.trim();
    const decision = readDecision(outcome.answer.decision, [word, recipient]);
    if (decision.kind === 'approve') {
      audit(ask, recipient, 'approved', 'host', started, reason);
      return;
    }
    if (decision.kind === 'always') {
      const to = give.to.id;
      if (to === undefined) {
        audit(ask, recipient, 'approved', 'host', started, 'no standing approval: the recipient could not be identified');
        await tellHost(`I handed over ${what} as you approved, but gave it no standing approval: I could not identify ${recipient}.`).catch(() => {});
        return;
      }
      const added = await Promise.all(
        pending.map(item => grants.addGive({ capabilityId: item.id, shown: item.shown, recipientId: to, who: recipient })),
      );
      audit(ask, recipient, 'approved', `host, standing grant ${added.map(grant => `#${grant.number}`).join(', ')}`, started, reason);
      return;
    }
    audit(ask, recipient, 'denied', decision.kind === 'deny' ? 'host' : 'unclear answer', started, decision.kind === 'unclear' ? decision.why : reason);
    throw refusal(what, decision.kind === 'deny' ? `the host denied it (${reason === '' ? 'no reason given' : reason})` : `the host's answer was not understood (${decision.why})`);
  };

  /** Resolves when `ask.give` may happen; rejects with the reason the model reads when it may not. */
  return async (ask: GiveAsk): Promise<void> => {
    const { give } = ask;
    const started = Date.now();
    const to = give.to.id;
    if (give.to.isHost) {
      audit(ask, 'the host', 'approved', 'fae: the host holds all fae holds', started);
      return;
    }
    const givenBack = to === undefined ? give.items.map(() => false) : await Promise.all(give.items.map(item => givenBy.gave(to, item.id)));
    const pending = give.items.filter((_, i) => !givenBack[i]);
    const recipient = await nameRecipient(give.to);
    if (pending.length === 0) {
      audit(ask, recipient, 'approved', 'fae: given back to whoever gave it', started);
      return;
    }
    const covering = to === undefined ? [] : await Promise.all(pending.map(item => grants.findGive(item.id, to)));
    if (covering.length > 0 && covering.every(grant => grant !== undefined)) {
      audit(ask, recipient, 'approved', `standing grant ${covering.map(grant => `#${grant?.number}`).join(', ')}`, started);
      return;
    }
    await askHost(ask, pending, recipient, started);
  };
};
harden(makeGiveGate);
export type GiveGate = ReturnType<typeof makeGiveGate>;

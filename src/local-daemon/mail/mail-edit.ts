// August's edits (next spec §3.4): only the original sender edits, and
// only packages; the sender's copy changes first, then the recipient's copy
// (found by messageId and sender), each re-published under its own number
// with a new date and `done`. A recipient who dismissed the message makes
// the edit fail after the sender's copy has changed. messageHistory gives
// the revisions kept in memory.
import { q } from '@endo/errors';
import type { AgentFormula, Kernel } from '../kernel/kernel.js';
import type { DirectoryOps } from '../names/directory.js';
import type { WireMessage } from './mailbox-state.js';
import type { Externalize } from './message-out.js';
import { mailboxFor } from './post-office.js';

type NameOrPath = string | readonly string[];

export const makeEditOps = (
  kernel: Kernel,
  agent: AgentFormula,
  names: DirectoryOps,
  externalize: Externalize,
) => {
  const { mailbox } = agent;
  const { assertEdgeNames, namePathFrom } = kernel.rules;
  const known = (number: bigint) => {
    const record = mailbox.get(number);
    if (record === undefined) throw Error(`No such message with number ${q(number)}`);
    return record;
  };

  const editMessage = async (
    number: bigint,
    strings: readonly string[],
    edgeNames: readonly string[],
    petNames: readonly NameOrPath[],
    options: { done?: boolean } = {},
  ) => {
    const current = known(number);
    if (current.from !== agent.handle) throw Error(`Only the original sender may edit message ${q(number)}`);
    if (current.type !== 'package') {
      throw Error(
        `editMessage currently supports only package messages (message ${q(number)} is ${q(current.type)})`,
      );
    }
    assertEdgeNames(edgeNames);
    if (petNames.length !== edgeNames.length) {
      throw Error(`Edit must have one edge name (${edgeNames.length}) for every pet name (${petNames.length})`);
    }
    if (strings.length < petNames.length) throw Error('Edit must have one string before every value delivered');
    const { done = true } = options;
    const found = await Promise.all(
      petNames.map(petName => names.identifyPath(namePathFrom(petName)).catch(() => undefined)),
    );
    const ids = found.map((id, i) => {
      if (id === undefined) throw Error(`Unknown pet name ${q(petNames[i])}`);
      return id;
    });
    const wire: WireMessage = harden({
      type: 'package',
      strings: [...strings],
      names: [...edgeNames],
      ids,
      messageId: current.messageId,
      ...(current.replyTo === undefined ? {} : { replyTo: current.replyTo }),
      from: agent.handle,
      to: current.to,
    });
    mailbox.revise(number, wire, done);
    if (current.to === current.from) return;
    const recipient = mailboxFor(kernel, current.to).mailbox;
    const theirs = recipient.findByMessageId(current.messageId, agent.handle);
    if (theirs === undefined) throw Error(`No message with id ${q(current.messageId)} from sender`);
    recipient.revise(theirs, wire, done);
  };

  const messageHistory = async (number: bigint) => {
    known(number);
    return harden(
      mailbox.history(number).map(revision =>
        harden({
          envelope: externalize(revision.envelope as never),
          done: revision.done,
          date: revision.date,
          timestamp: Date.parse(revision.date),
        }),
      ),
    );
  };

  return harden({ editMessage, messageHistory });
};
harden(makeEditOps);

// src/local-daemon/mail/: each agent's inbox and mail: send, requests, forms,
// edits, the MAIL hub and how a message leaves the daemon.
// Imports: src/daemon and below, and the rest of src/local-daemon.
//
// An agent's mail operations (spec §4.3): send, reply, adopt, dismiss,
// request/resolve/reject, listMessages and followMessages; forms and
// values on May and August (mail-forms.ts), edits on August (mail-edit.ts),
// evaluation, reviewed by the host on February (evaluation.ts).
import { q } from '@endo/errors';
import type { AgentFormula, Kernel } from '../kernel/kernel.js';
import type { DirectoryOps } from '../names/directory.js';
import type { MessageRecord, WireMessage } from './mailbox-state.js';
import { makeExternalize, mapIterator } from './message-out.js';
import { makeEditOps } from './mail-edit.js';
import { makeFormOps } from './mail-forms.js';
import { makeRequestOps } from './mail-requests.js';
import { makeEvalOps } from '../workers/evaluation.js';
import type { Formulator } from '../kernel/formulate.js';
import { mailboxFor, type PostOffice } from './post-office.js';

type NameOrPath = string | readonly string[];

/** The ids of a package's attachments, after the checks send and reply share, in the daemon's order. */
const attachmentIds = async (
  kernel: Kernel,
  names: DirectoryOps,
  { strings, edgeNames, petNames }: { strings: readonly string[]; edgeNames: readonly string[]; petNames: readonly NameOrPath[] },
) => {
  if (petNames.length !== edgeNames.length) {
    throw Error(`Message must have one edge name (${edgeNames.length}) for every pet name (${petNames.length})`);
  }
  if (strings.length < petNames.length) {
    throw Error('Message must have one string before every value delivered');
  }
  // All at once; the first unknown name in order is the one reported.
  const found = await Promise.all(
    petNames.map(petName => names.identifyPath(kernel.rules.namePathFrom(petName)).catch(() => undefined)),
  );
  return found.map((id, i) => {
    if (id === undefined) throw Error(`Unknown pet name ${q(petNames[i])}`);
    return id;
  });
};

export const makeMailOps = (
  kernel: Kernel,
  agentId: string,
  agent: AgentFormula,
  names: DirectoryOps,
  post: PostOffice,
  formulator: Formulator,
) => {
  const { mailbox } = agent;
  const { assertEdgeNames, assertName, namePathFrom, petNamePathFrom } = kernel.rules;
  const isFeb = kernel.dialect === 'feb';
  const externalize = makeExternalize(kernel);
  const selfId = agent.handle;

  /** The recipient's copy first, then our own unless we wrote to ourselves. */
  const dispatch = (to: string, wire: WireMessage) => {
    const recipient = mailboxFor(kernel, to);
    recipient.mailbox.deliver(wire);
    if (recipient.agentId !== agentId) mailbox.deliver(wire);
  };

  const resolveRecipient = async (recipient: NameOrPath) => {
    const path = namePathFrom(recipient);
    const id = await names.identifyPath(path).catch(() => undefined);
    if (id === undefined) throw Error(`Unknown recipient ${q(recipient)}`);
    mailboxFor(kernel, id);
    return id;
  };

  const prepareAttachments = (strings: readonly string[], edgeNames: readonly string[], petNames: readonly NameOrPath[]) =>
    attachmentIds(kernel, names, { strings, edgeNames, petNames });

  const packageOf = (to: string, strings: readonly string[], edgeNames: readonly string[], ids: string[], replyTo?: string) =>
    harden({
      type: 'package',
      ...{ strings: [...strings], names: [...edgeNames], ids },
      ...{ messageId: kernel.mintMessageId(), from: selfId, to },
      ...(replyTo === undefined ? {} : { replyTo }),
    }) as WireMessage;

  const messageOf = (number: bigint): MessageRecord => {
    const record = mailbox.get(number);
    if (record === undefined) throw Error(`No such message with number ${q(number)}`);
    return record;
  };

  return harden({
    ...(kernel.dialect === 'aug' ? makeEditOps(kernel, agent, names, externalize) : {}),
    ...(isFeb ? {} : makeFormOps(kernel, agent, names, { dispatch, resolveRecipient, messageOf })),
    listMessages: async () => harden(mailbox.list().map(externalize)),
    followMessages: async () =>
      post.follow(
        harden({
          start: (push: (record: MessageRecord) => void) => ({
            stop: mailbox.subscribe(record => push(externalize(record))),
            replay: mapIterator(mailbox.live(), externalize),
          }),
        }),
      ),
    send: async (
      recipient: NameOrPath,
      strings: readonly string[],
      edgeNames: readonly string[],
      petNames: readonly NameOrPath[],
      replyToNumber?: bigint,
    ) => {
      namePathFrom(recipient);
      assertEdgeNames(edgeNames);
      const to = await resolveRecipient(recipient);
      const ids = await prepareAttachments(strings, edgeNames, petNames);
      // May and later: a fifth argument naming a message in our inbox sets
      // replyTo; an unknown number is ignored.
      const replyTo = replyToNumber === undefined ? undefined : mailbox.get(replyToNumber)?.messageId;
      dispatch(to, packageOf(to, strings, edgeNames, ids, replyTo));
    },
    reply: async (
      number: bigint,
      strings: readonly string[],
      edgeNames: readonly string[],
      petNames: readonly NameOrPath[],
    ) => {
      const parent = messageOf(number);
      // Our own sent copy is answered to its recipient; anything else to its sender.
      const to = parent.from === selfId ? parent.to : parent.from;
      assertEdgeNames(edgeNames);
      const ids = await prepareAttachments(strings, edgeNames, petNames);
      dispatch(to, packageOf(to, strings, edgeNames, ids, parent.messageId));
    },
    adopt: async (number: bigint, edgeName: string, nameOrPath: NameOrPath) => {
      assertName(edgeName);
      const target = petNamePathFrom(nameOrPath);
      const record = messageOf(number);
      if (record.type === 'value' && !isFeb) {
        if (edgeName !== 'value') throw Error(`Value messages only have a "value" edge, not ${q(edgeName)}`);
        await names.write(target, record.valueId as string);
        return;
      }
      if (record.type !== 'package') {
        throw Error(`Message must be a package ${isFeb ? '' : 'or value '}${q(number)}`);
      }
      const edgeNames = record.names as string[];
      const index = edgeNames.lastIndexOf(edgeName);
      if (index < 0) throw Error(`No reference named ${q(edgeName)} in message ${q(number)}`);
      await names.write(target, (record.ids as string[])[index]);
    },
    dismiss: async (number: bigint) => {
      if (!mailbox.dismiss(number)) throw Error(`Invalid request number ${number}`);
    },
    dismissAll: async () => {
      for (const record of mailbox.list()) mailbox.dismiss(record.number);
    },
    ...makeRequestOps(kernel, agent, names, post, dispatch),
    ...makeEvalOps(kernel, agent, names, formulator, { post, dispatch }),
  });
};
harden(makeMailOps);
export type MailOps = ReturnType<typeof makeMailOps>;

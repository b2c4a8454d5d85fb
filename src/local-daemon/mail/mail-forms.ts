// Forms and values (next spec §3.1, §3.3, §5.3; May and August): `form`
// mails a description and fields, `submit` answers a form in one's own
// inbox with a `value` message to its sender (defaults filled in, every
// field required, each checked against its pattern, a string unless the
// field says otherwise), and `sendValue` answers any message with a named
// value. A value message replies to its form (`replyTo`) and carries the
// raw id of the value (`valueId`), which `adopt` names through the edge
// `value` and `lookupById` reads.
import { q } from '@endo/errors';
import { M, mustMatch, type Pattern } from '@endo/patterns';
import type { AgentFormula, Kernel } from '../kernel/kernel.js';
import type { DirectoryOps } from '../names/directory.js';
import type { MessageRecord, WireMessage } from './mailbox-state.js';
import { makeValueMarshal } from '../kernel/value-marshal.js';

type NameOrPath = string | readonly string[];

/** What the form operations borrow from the agent's mail (mail.ts). */
export interface FormMail {
  /** Delivers to the recipient's inbox, then to the sender's own. */
  dispatch(to: string, wire: WireMessage): void;
  /** The raw id of a recipient, or the daemon's "Unknown recipient" error. */
  resolveRecipient(recipient: NameOrPath): Promise<string>;
  /** The record of a number in one's own inbox, or the daemon's error. */
  messageOf(number: bigint): MessageRecord;
}

interface FormField {
  readonly name: string;
  readonly default?: unknown;
  readonly pattern?: Pattern;
}

/** The values a submission posts: defaults first, every field present and matching. */
const checkedValues = (fields: readonly FormField[], given: Readonly<Record<string, unknown>>) => {
  const defaults = Object.fromEntries(fields.map(field => [field.name, field.default]));
  const values = { ...defaults, ...given };
  for (const { name, pattern } of fields) {
    if (values[name] === undefined) throw Error(`Missing value for field ${q(name)}`);
    mustMatch(values[name], pattern ?? M.string(), `field ${q(name)}`);
  }
  return harden(values);
};

export const makeFormOps = (kernel: Kernel, agent: AgentFormula, names: DirectoryOps, mail: FormMail) => {
  const { namePathFrom } = kernel.rules;
  const marshal = makeValueMarshal(kernel);
  const selfId = agent.handle;

  const valueMessage = (to: string, replyTo: string, valueId: string): WireMessage =>
    harden({ type: 'value', from: selfId, to, messageId: kernel.mintMessageId(), replyTo, valueId });

  return harden({
    form: async (recipient: NameOrPath, description: string, fields: readonly Record<string, unknown>[]) => {
      const to = await mail.resolveRecipient(recipient);
      mail.dispatch(
        to,
        harden({ type: 'form', from: selfId, to, messageId: kernel.mintMessageId(), description, fields: [...fields] }),
      );
    },
    submit: async (number: bigint, given: Readonly<Record<string, unknown>>) => {
      const form = mail.messageOf(number);
      if (form.type !== 'form') throw Error(`Message ${q(number)} is not a form (is ${q(form.type)})`);
      const values = checkedValues(form.fields as readonly FormField[], given);
      const valueId = kernel.mintId();
      const { body, slots } = marshal.toCapData(values as Parameters<typeof marshal.toCapData>[0]);
      kernel.register(valueId, { type: 'marshal', body, slots: harden([...slots]) });
      mail.dispatch(form.from, valueMessage(form.from, form.messageId, valueId));
    },
    sendValue: async (number: bigint, nameOrPath: NameOrPath) => {
      const parent = mail.messageOf(number);
      const to = parent.from === selfId ? parent.to : parent.from;
      const valueId = await names.identifyPath(namePathFrom(nameOrPath)).catch(() => undefined);
      if (valueId === undefined) throw Error(`Unknown pet name ${q(nameOrPath)}`);
      mail.dispatch(to, valueMessage(to, parent.messageId, valueId));
    },
  });
};
harden(makeFormOps);

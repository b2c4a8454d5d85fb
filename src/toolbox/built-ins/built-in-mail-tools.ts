// Built-ins for the mail beyond send/reply/listMessages/dismiss: adopt
// (keep any attachment under a pet name), request (ask someone for a
// capability) and resolve/reject (answer a request fae received). All go
// through E() on the guest powers.
//
// The daemon's request() waits until the other party answers, which may be
// never; a tool call cannot wait that long, so the request tool checks what
// the daemon would only report later (an unknown recipient, a taken answer
// name), sends the request and returns. The answer lands under the name
// the model chose, and its outcome is logged.
import { E } from '@endo/far';
import type { MessageRecord } from '../../daemon/endo-types.js';
import type { Logger } from '../../logging/log.js';
import type { DaemonAdapter } from '../../daemon/adapter.js';
import type { FaeTool } from '../discovered-tools.js';
import { toMessageNumber } from '../tool-arguments.js';
import { readFlag, readNamePath, readOptionalString, readString } from './built-in-arguments.js';
import { MESSAGE_NUMBER, PET_NAME_PATH, type PowersIn, REPLACE, defineBuiltIn, showPath } from './built-in-tool.js';
import { noSuchMessage } from './path-checks.js';

export interface MailToolOptions {
  /** Told of every request fae answered with resolve or reject. */
  readonly onAnswer?: (number: bigint) => void;
  /** Where the outcome of a request fae sent is reported. */
  readonly logger?: Logger;
  /** The daemon adapter, which spells special names the daemon's way. */
  readonly daemon?: () => Promise<DaemonAdapter>;
}

/** The request message `number`, or an error naming messageNumber. */
const findRequest = (messages: readonly MessageRecord[], number: bigint) => {
  const message = messages.find(m => m.number === number);
  if (message === undefined) throw noSuchMessage(number);
  if (message.type !== 'request') {
    throw Error(
      `messageNumber: message #${number} is a ${message.type} message, not a request; answer it with reply instead`,
    );
  }
  return message;
};

/** adopt: keeps a message's attachment under a pet name. */
const adoptTool = (powersIn: PowersIn) =>
  defineBuiltIn({
    name: 'adopt',
    description:
      'Keep an attachment of a message (@name in its text) under a pet name; for tools, prefer adoptTool. Refuses a taken name unless replace is true.',
    parameters: {
      messageNumber: MESSAGE_NUMBER,
      edgeName: { type: 'string', description: 'The attachment\'s name in the message, without "@".' },
      petName: { type: 'string', description: 'The pet name (or path such as "keys/door") to keep it under.' },
      replace: REPLACE,
    },
    required: ['messageNumber', 'edgeName', 'petName'],
    execute: async (args, scope) => {
      const powers = powersIn(scope);
      const number = toMessageNumber(args.messageNumber);
      const edgeName = readString(args, 'edgeName').replace(/^@/, '');
      const path = readNamePath(args, 'petName');
      if (!readFlag(args, 'replace') && (await E(powers).has(...path))) {
        throw Error(
          `petName: ${showPath(path)} already exists; choose an unused name (list shows them), or pass replace: true to replace what it holds`,
        );
      }
      await E(powers).adopt(number, edgeName, path);
      return `Adopted @${edgeName} from message #${number} as ${showPath(path)}.`;
    },
  });

/** request: asks someone for a capability; returns at once, the answer landing under the chosen name. */
const requestTool = (powersIn: PowersIn, { logger, daemon }: MailToolOptions) =>
  defineBuiltIn({
    name: 'request',
    description:
      'Ask someone (a pet name, or your host under the special name list shows) to give you a capability. Returns at once; when they answer, what they give is stored under responseName (check with has).',
    parameters: {
      recipient: { type: 'string', description: 'Who to ask: a pet name, or your host\'s special name.' },
      description: { type: 'string', description: 'What you are asking for, in plain words.' },
      responseName: { type: 'string', description: 'An unused pet name under which to keep the answer.' },
    },
    required: ['recipient', 'description', 'responseName'],
    execute: async (args, scope) => {
      const powers = powersIn(scope);
      // Either spelling of the host's special name works on every daemon.
      const asked = readNamePath(args, 'recipient');
      const recipient = daemon === undefined ? asked : (await daemon()).path(asked);
      const description = readString(args, 'description');
      const responseName = readNamePath(args, 'responseName');
      // A refusal (a sealed name) is the answer, not "nothing is named".
      const [recipientId, taken] = await Promise.all([
        E(powers).identify(...recipient),
        E(powers).has(...responseName),
      ]);
      if (recipientId === undefined) {
        throw Error(
          `recipient: nothing is named ${showPath(recipient)}; give the pet name of an agent, or your host's special name as list shows it`,
        );
      }
      if (taken) {
        // The daemon would answer with what the name already holds and
        // send nothing.
        throw Error(`responseName: ${showPath(responseName)} already exists; choose an unused name for the answer`);
      }
      const fields = { recipient: recipient.join('/'), responseName: responseName.join('/') };
      Promise.resolve(E(powers).request(recipient, description, responseName)).then(
        () => logger?.event('request-answered', fields),
        error => logger?.warn('request-declined', { ...fields, error }),
      );
      return `Asked ${showPath(recipient)}: ${JSON.stringify(description)}. If they give it, it will be stored as ${showPath(responseName)}; if they decline, nothing is stored.`;
    },
  });

/** resolve: answers a request fae received with something from its directory. */
const resolveTool = (powersIn: PowersIn, { onAnswer }: MailToolOptions) =>
  defineBuiltIn({
    name: 'resolve',
    description:
      'Answer a request message you received by giving the requester something from your directory.',
    parameters: {
      messageNumber: MESSAGE_NUMBER,
      petName: { ...PET_NAME_PATH, description: 'The pet name (or path) of what to give.' },
    },
    required: ['messageNumber', 'petName'],
    execute: async (args, scope) => {
      const powers = powersIn(scope);
      const number = toMessageNumber(args.messageNumber);
      const path = readNamePath(args, 'petName');
      const [messages, exists] = await Promise.all([
        E(powers).listMessages(),
        E(powers).has(...path),
      ]);
      findRequest(messages, number);
      if (!exists) {
        throw Error(`petName: nothing is named ${showPath(path)}; list shows your names`);
      }
      await E(powers).resolve(number, path);
      onAnswer?.(number);
      return `Answered request #${number} with ${showPath(path)}.`;
    },
  });

/** reject: declines a request fae received. */
const rejectTool = (powersIn: PowersIn, { onAnswer }: MailToolOptions) =>
  defineBuiltIn({
    name: 'reject',
    description: 'Decline a request message you received, optionally saying why.',
    parameters: {
      messageNumber: MESSAGE_NUMBER,
      reason: { type: 'string', description: 'Why, in a few words (optional).' },
    },
    required: ['messageNumber'],
    execute: async (args, scope) => {
      const powers = powersIn(scope);
      const number = toMessageNumber(args.messageNumber);
      const reason = readOptionalString(args, 'reason');
      findRequest(await E(powers).listMessages(), number);
      await (reason === undefined ? E(powers).reject(number) : E(powers).reject(number, reason));
      onAnswer?.(number);
      return `Declined request #${number}${reason === undefined ? '' : `: ${JSON.stringify(reason)}`}.`;
    },
  });

export const makeMailTools = (powersIn: PowersIn, options: MailToolOptions = {}): readonly (readonly [string, FaeTool])[] =>
  harden([adoptTool(powersIn), requestTool(powersIn, options), resolveTool(powersIn, options), rejectTool(powersIn, options)]);
harden(makeMailTools);

// Test support for approvals (issue 22): a tool that records its runs and
// asks for approval itself, a model that calls it and then says what it
// was told, and the host answering fae's approval request the way each
// daemon generation lets it (a form's decision on May and August; on
// February resolving the request with a text value, or rejecting it).
import { E } from '@endo/far';
import { makeFaeTool } from '../../src/tool-kit/make-fae-tool.js';
import type { ScriptedReply } from './scripted-provider.js';
import { messageText, type MessageRecord } from './daemon.js';
import type { Far } from './fae-harness.js';

export const APPROVAL_HEADING = 'Approval needed:';

/** A tool `name` that records what it was called with; it asks for approval itself unless told not to. */
export const makeRecordingTool = (runs: string[], { name = 'touch', needsApproval = true } = {}) =>
  makeFaeTool({
    name,
    description: `Touches a thing (${name}).`,
    parameters: { what: { type: 'string', description: 'What to touch.' } },
    required: ['what'],
    help: 'a test tool that records its calls',
    needsApproval,
    execute: ({ what }) => {
      runs.push(what);
      return `touched ${what}`;
    },
  });

/** A model that calls `tool` once for each message, then answers with what the call gave it. */
export const callThenSay =
  (tool = 'touch', what = 'x'): ScriptedReply =>
  request => {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') return { text: `tool said: ${last.content}` };
    return { toolCalls: [{ name: tool, arguments: { what } }] };
  };

export const isApprovalRequest = (message: MessageRecord) =>
  (message.type === 'form' || message.type === 'request') && String(message.description ?? '').startsWith(APPROVAL_HEADING);

/** The whole request fae mails before its form (May, August): an ordinary message. */
export const isApprovalDetail = (message: MessageRecord) => message.type === 'package' && messageText(message).startsWith(APPROVAL_HEADING);

/** An approval request, and its whole text (a form's is the message before it). */
export type ApprovalRequest = MessageRecord & { readonly text: string };

/**
 * Reads fae's messages to the host as they come, pairing each form with
 * the whole request mailed before it (by its title, the first line):
 * `request` gives an approval request with its text, `skip` whether a
 * message is part of one (not a text the host reads otherwise).
 */
export const makeApprovalReader = () => {
  const details = new Map<string, string>();
  return {
    /** The request `message` is, with its whole text; undefined for any other message (a detail is kept). */
    request: (message: MessageRecord): ApprovalRequest | undefined => {
      if (isApprovalDetail(message)) {
        const text = messageText(message);
        details.set(text.split('\n')[0], text);
        return undefined;
      }
      if (!isApprovalRequest(message)) return undefined;
      const description = String(message.description);
      return harden({ ...message, text: message.type === 'form' ? (details.get(description) ?? description) : description });
    },
    /** Whether `message` belongs to an approval request. */
    skip: (message: MessageRecord) => isApprovalRequest(message) || isApprovalDetail(message),
  };
};

/** The texts of the approval requests among `messages`: descriptions and the whole requests before forms. */
export const approvalTexts = (messages: readonly MessageRecord[]) =>
  messages.flatMap(message =>
    isApprovalDetail(message) ? [messageText(message)] : isApprovalRequest(message) ? [String(message.description)] : [],
  );

/** The host answers an approval request: `decision` as typed (deny on February is a rejection with `reason`). */
export const answerApproval = async (host: Far, request: MessageRecord, decision: string, reason = '') => {
  if (request.type === 'form') {
    await E(host).submit(request.number, harden({ decision, reason }));
    return;
  }
  if (decision === 'deny') {
    await E(host).reject(request.number, reason === '' ? 'Declined' : reason);
    return;
  }
  await E(host).storeValue(reason === '' ? decision : harden({ decision, reason }), 'approval-decision');
  await E(host).resolve(request.number, 'approval-decision');
};

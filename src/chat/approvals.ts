// fae's approval requests in `npm start` (issue 22): the chat is the host,
// so a request fae sends it (a form on May and August, after the whole
// request as a message; a request on February:
// src/agent/authority/approval-channel.ts) is shown in the terminal, the
// prompt asks for the decision, and the user answers with /approve, /deny
// [reason], /always [for <who>], or by typing a decision at the prompt
// ("yes", "no", "always"). The answer goes back as the daemon lets the
// host answer: the form submitted, or the request resolved with the
// decision as a text value (rejected, for a denial). On February, the
// eval-request evaluate makes the daemon send is answered the same way:
// approved (the daemon runs the code) or rejected. Answered requests are
// dismissed from the host's inbox.
import { E } from '@endo/far';
import { q } from '@endo/errors';
import type { InboxMessage } from '../daemon/adapter.js';
import { APPROVAL_HEADING, block } from '../agent/authority/approval-text.js';
import { messageText } from '../daemon/message-format.js';
import { makeRecentMap } from '../recent-map.js';
import { readDecision } from '../agent/authority/approval-decision.js';
import type { Screen } from './screen.js';
import { inBackground } from '../background.js';
import { describeError } from './describe-error.js';

/** A request of fae's waiting for the user's decision. */
export interface WaitingApproval {
  /** Its number in the host's inbox. */
  readonly number: bigint;
  /** The four hex digits fae tells its requests apart by. */
  readonly tag: string;
  /** What would be done ("run `ls -la`"), and for whom ("you", "alice"), from its first line. */
  readonly what: string;
  readonly asker: string;
  /** What fae wrote, without its last line (how to answer elsewhere). */
  readonly text: string;
  /** How the host answers it: a form's decision, a request's value, or running the code (February's eval-request). */
  readonly kind: 'form' | 'request' | 'eval';
}

/** The name under which the chat keeps a decision to resolve a February request with. */
const ANSWER_NAME = 'approval-answer';

/** A request's title: what, for whom (no backtick or question mark in a name), its tag. */
const TITLE = /^Approval needed: (.+) for ([^`?]+)\? \(request ([0-9a-f]+)\)$/;

/** The whole requests fae sent before their forms, remembered at most. */
const DETAILS_KEPT = 64;

/** February: fae's evaluate asks the daemon, which mails the host an eval-request. */
const evalRequestOf = (record: InboxMessage): WaitingApproval =>
  harden({
    number: record.number,
    tag: `#${record.number}`,
    what: 'run this code',
    asker: 'fae',
    text: `fae asks you to run this code (JavaScript, in a fresh worker):\n${block(String(record.source ?? ''), 'js')}\nIt receives, from fae's directory: ${JSON.stringify(record.petNamePaths ?? [])} as ${JSON.stringify(record.codeNames ?? [])}.`,
    kind: 'eval',
  });

/** The request without its last paragraph, which says how to answer elsewhere (the chat says its own). */
const withoutAnswering = (text: string) => {
  const at = text.lastIndexOf('\nAnswer ');
  return at === -1 ? text : text.slice(0, at);
};

/**
 * The request a message is, if it is one of fae's approval requests; a
 * form's whole text is the message fae sent before it (`detailOf`).
 */
const requestOf = (record: InboxMessage, detailOf: (title: string) => string | undefined): WaitingApproval | undefined => {
  if (record.type === 'eval-request') return evalRequestOf(record);
  const description = typeof record.description === 'string' ? record.description : '';
  if ((record.type !== 'form' && record.type !== 'request') || !description.startsWith(APPROVAL_HEADING)) return undefined;
  const firstLine = description.split('\n')[0];
  const title = TITLE.exec(firstLine);
  const whole = record.type === 'form' ? (detailOf(firstLine) ?? description) : description;
  return harden({
    number: record.number,
    tag: title?.[3] ?? '',
    what: title?.[1] ?? 'call a tool',
    asker: title?.[2] ?? 'someone',
    text: withoutAnswering(whole),
    kind: record.type === 'form' ? 'form' : 'request',
  });
};

/** Whether the user, as fae's host, asked for it. */
const askedByHost = (request: WaitingApproval) => request.asker === 'you';

// `any`: the host is a remote presence.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

export const makeChatApprovals = (host: Far, { onChange }: { readonly onChange: (waiting: readonly WaitingApproval[], added?: WaitingApproval) => void }) => {
  const waiting = new Map<bigint, WaitingApproval>();
  const details = makeRecentMap<string, string>(DETAILS_KEPT);
  const list = () => harden([...waiting.values()]);
  const settle = (number: bigint) => {
    if (waiting.delete(number)) onChange(list());
  };

  /** The request `ref` names (its tag, or #N), or the only one waiting; else what is wrong. */
  const find = (ref: string | undefined): WaitingApproval | string => {
    if (waiting.size === 0) return 'No request of fae waits for your approval.';
    if (ref === undefined) {
      if (waiting.size === 1) return [...waiting.values()][0];
      return `Several requests wait (${[...waiting.values()].map(r => r.tag).join(', ')}); say which, as in "/approve ${[...waiting.values()][0].tag}".`;
    }
    const found = [...waiting.values()].find(r => r.tag === ref || `#${r.number}` === ref);
    return found ?? `No waiting request is ${q(ref)}; waiting: ${[...waiting.values()].map(r => r.tag).join(', ')}.`;
  };

  /** Answers `request` as the daemon lets the host: `decision` as typed, a reason for the model. */
  const answer = async (request: WaitingApproval, decision: string, reason = '') => {
    if (request.kind === 'form') {
      await E(host).submit(request.number, harden({ decision, reason }));
    } else if (readDecision(decision, []).kind === 'deny') {
      await E(host).reject(request.number, reason === '' ? 'Declined' : reason);
    } else if (request.kind === 'eval') {
      // February's own review: approving runs the code (each evaluation is asked for anew).
      await E(host).approveEvaluation(request.number);
    } else {
      await E(host).storeValue(reason === '' ? decision : harden({ decision, reason }), ANSWER_NAME);
      await E(host).resolve(request.number, ANSWER_NAME);
    }
    settle(request.number);
    await E(host).dismiss(request.number).catch(() => {});
  };

  return harden({
    /** For the mail feed: true when `record` is one of fae's approval requests (shown here, not as mail). */
    consider: (record: InboxMessage) => {
      if (record.type === 'package') {
        const text = messageText(record);
        if (!text.startsWith(APPROVAL_HEADING)) return false;
        // Shown with its form, which follows; the first one of a title counts.
        const title = text.split('\n')[0];
        if (details.get(title) === undefined) details.set(title, text);
        return true;
      }
      const request = requestOf(record, title => details.get(title));
      if (request === undefined) return false;
      if (!waiting.has(request.number)) {
        waiting.set(request.number, request);
        onChange(list(), request);
        void Promise.resolve(record.dismissed).then(() => settle(request.number), () => {});
      }
      return true;
    },
    waiting: list,
    find,
    answer,
    /**
     * A line typed at the prompt that reads as a decision while exactly one
     * request waits: that request, else undefined (the line is a message).
     */
    typedDecision: (line: string) => {
      if (waiting.size !== 1) return undefined;
      const request = [...waiting.values()][0];
      return readDecision(line, askedByHost(request) ? [request.asker, 'me'] : [request.asker]).kind === 'unclear' ? undefined : request;
    },
    /** Leaving the chat: every request still waiting is denied, saying why. */
    denyAll: async (reason: string) => {
      await Promise.all(list().map(request => answer(request, 'deny', reason).catch(() => {})));
    },
  });
};
harden(makeChatApprovals);
export type ChatApprovals = ReturnType<typeof makeChatApprovals>;

/** What the terminal shows when a request arrives. */
const describeRequest = (request: WaitingApproval) =>
  `${request.text}\n\nAnswer with /approve, /deny [reason] or /always (from now on, for ${askedByHost(request) ? 'you' : request.asker}); or type yes, no or always.`;

/** The prompt's question while requests wait. */
const promptQuestion = (waiting: readonly WaitingApproval[]) =>
  waiting.length === 0
    ? undefined
    : waiting.length === 1
      ? `${waiting[0].what} for ${waiting[0].asker}? (yes/no/always)`
      : `${waiting.length} requests wait for your approval (/approve TAG)`;

/**
 * Shows the requests as they come, and asks for the decision at the
 * prompt. Once the chat is leaving (its input ended), nobody can answer:
 * a request that comes then is denied, for `reason`, so fae's turn can end.
 */
export const showApprovals =
  (
    screen: Pick<Screen, 'note' | 'question'>,
    { leaving, approvals, reason }: { readonly leaving: () => boolean; readonly approvals: () => ChatApprovals | undefined; readonly reason: string },
  ) =>
  (waiting: readonly WaitingApproval[], added?: WaitingApproval) => {
    if (added !== undefined) screen.note(describeRequest(added));
    screen.question(promptQuestion(waiting));
    if (added !== undefined && leaving()) inBackground(approvals()?.answer(added, 'deny', reason), error => screen.note(`(could not deny it: ${describeError(error)})`));
  };
harden(showApprovals);

// src/agent/authority/: who may do what: the host's approval of tool calls
// (policy, decision, channel, grants), sealed names and senders' names.
// Imports: the layers below src/agent, and the rest of src/agent but fae.ts.
//
// Ask before acting (issue 22): the gate a turn passes before each tool
// call. A call the policy names (approval-policy.ts), or whose tool asks
// for it itself, runs only once the host approves it, unless a standing
// grant covers it (approval-grants.ts). Only that turn waits: it gives up
// its place among the concurrent turns meanwhile, its sender is told once,
// and the wait is bounded (FAE_APPROVAL_TIMEOUT_MS, then a denial). A
// denied call reaches the model as a tool result that says so, and the
// turn goes on. Every decision is logged (redacted): who asked, what, the
// decision, by whom, and how long it waited.
import { E } from '@endo/far';
import type { GuestPowers, Ref } from '../../daemon/endo-types.js';
import { formulaIdOf } from '../../daemon/dialect.js';
import type { Logger } from '../../logging/log.js';
import type { Redact } from '../../logging/redact.js';
import { type DiscoveredTools, type FaeTool, TOOLS_DIRECTORY } from '../../toolbox/discovered-tools.js';
import { isMarkedReadOnly, rulesNaming, type ApprovalPolicyHolder, type ApprovalRule } from './approval-policy.js';
import type { ApprovalGrants, GrantedTool } from './approval-grants.js';
import type { ApprovalChannel } from './approval-channel.js';
import { readDecision } from './approval-decision.js';
import { approvalText, argumentsSummary, unshownArguments } from './approval-text.js';
import { makeRequestTags } from './request-tags.js';
import type { HostWait, WaitingTurn } from './approval-wait.js';
import type { ApprovedCalls } from './approved-calls.js';
import { senderWord } from './sender-names.js';

/** The turn a call is made in. */
export interface ApprovalTurn {
  /** The message the turn answers. */
  readonly message: bigint;
  /** The same message as it stays known across restarts (its id, or its number where it has none). */
  readonly messageKey: string;
  /** The sender's raw id. */
  readonly correspondent: string;
  /** How fae names the sender (a pet name, or "an unnamed sender"). */
  readonly sender: string;
  /** The message's first words, quoted, for what the host reads (fae's own number means nothing there). */
  readonly about?: string;
  readonly fromHost: boolean;
}

export interface ApprovalAsk extends WaitingTurn {
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly tools: DiscoveredTools;
  readonly turn: ApprovalTurn;
}

export type ApprovalOutcome =
  | {
      readonly run: true;
      /**
       * The call itself waits for the host (February's evaluation, which
       * the daemon has its host review): it may take this much longer than
       * a tool's timeout, and `after` is told how it ended.
       */
      readonly waitsMs?: number;
      readonly after?: (error?: unknown) => void;
    }
  | { readonly run: false; readonly result: string };

const RUN: ApprovalOutcome = harden({ run: true });
const refused = (result: string): ApprovalOutcome => harden({ run: false, result });

export interface ApprovalsOptions {
  readonly powers: Ref<GuestPowers>;
  readonly policy: ApprovalPolicyHolder;
  readonly grants: ApprovalGrants;
  readonly channel: ApprovalChannel;
  /** How a turn waits for the host's answer (approval-wait.ts). */
  readonly hostWait: HostWait;
  readonly logger: Logger;
  readonly redact: Redact;
  /** Tells the host (fae's words; redacted on the way). */
  readonly tellHost: (text: string) => Promise<void>;
  /**
   * The tools whose every call the host reviews, whatever the policy and
   * grants say (evaluate, told by identity), and whether the daemon asks
   * the host itself (February's eval-request) rather than fae.
   */
  readonly reviewed?: { readonly is: (tool: FaeTool | undefined) => boolean; readonly byDaemon: boolean };
  /** Whether a name of fae's directory was made by someone other than the model (model-names.ts). */
  readonly trusts: (path: readonly string[]) => boolean;
  /** The approved calls that may have run before a restart (approved-calls.ts); none kept without it. */
  readonly approvedCalls?: ApprovedCalls;
  /** The correspondent the host named so (/name, host-names.ts): a rule's WHO is read from it first. */
  readonly namedByHost?: (name: string) => string | undefined;
}

/** What a standing approval would name: a tool, none for one that cannot be identified, or never (each call reviewed). */
type Grantable = GrantedTool | undefined | 'never';

/** A short tag for each request, so the host (and fae after a restart) tells them apart. */

/** Logs a decision: who asked, what, the decision, by whom, how long it waited (redacted). */
const auditWith = (logger: Logger, redact: Redact) => (ask: ApprovalAsk, decision: string, by: string, started: number, reason = '') =>
  logger.event('approval', {
    message: ask.turn.message,
    from: ask.turn.sender,
    tool: ask.name,
    arguments: argumentsSummary(ask.args, redact),
    decision,
    by,
    waitedMs: Date.now() - started,
    ...(reason === '' ? {} : { reason: redact(reason) }),
  });

/**
 * What the host's answer means: run (once, or with a standing grant), or a
 * refusal the model reads; an answer fae cannot read is a denial, and the
 * host is told why.
 */
const decide = async (
  { grants, tellHost, audit }: Pick<ApprovalsOptions, 'grants' | 'tellHost'> & { audit: ReturnType<typeof auditWith> },
  ask: ApprovalAsk,
  answer: { decision: unknown; reason: string },
  tool: Grantable,
  started: number,
): Promise<ApprovalOutcome> => {
  const { turn } = ask;
  const decision = readDecision(answer.decision, [senderWord(turn.sender), turn.sender, ...(turn.fromHost ? ['HOST', 'host', 'me'] : [])]);
  const reason = answer.reason.trim();
  if (decision.kind === 'approve') {
    audit(ask, 'approved', 'host', started, reason);
    return RUN;
  }
  if (decision.kind === 'always') {
    if (tool === undefined || tool === 'never') {
      const why = tool === 'never' ? `every call of ${ask.name} is reviewed` : 'I could not identify the tool';
      audit(ask, 'approved', 'host', started, `no standing approval: ${why}`);
      await tellHost(`I ran ${ask.name} as you approved, but gave it no standing approval: ${why}. I will ask again next time.`).catch(() => {});
      return RUN;
    }
    const grant = await grants.add(tool, decision.forAsker ? { correspondent: turn.correspondent, who: turn.sender } : undefined);
    audit(ask, 'approved', `host, standing grant #${grant.number} for ${grant.who}`, started, reason);
    return RUN;
  }
  if (decision.kind === 'deny') {
    audit(ask, 'denied', 'host', started, reason);
    return refused(`The host denied this: ${reason === '' ? 'no reason given' : reason}. Do not try it again in this turn; go on without it, or tell the sender.`);
  }
  audit(ask, 'denied', 'unclear answer', started, decision.why);
  await tellHost(`I took your answer on ${ask.name} for ${turn.fromHost ? 'you' : turn.sender} as a denial: ${decision.why}.`).catch(() => {});
  return refused(`The host's answer was not understood (${decision.why}), so this was not run; it counts as a denial.`);
};

/**
 * Whether one of the rules naming a tool applies in this turn: WHO
 * compared by identity, and read only from a name the model did not
 * write. A WHO that names no one fae can trust (unbound, or bound by the
 * model) applies to every correspondent but the host: removing or
 * rebinding a name never lifts an approval.
 */
const rulesApply = async ({ powers, trusts, namedByHost }: ApprovalsOptions, rules: readonly ApprovalRule[], turn: ApprovalTurn) => {
  if (rules.some(rule => rule.who === undefined)) return true;
  const outcomes = await Promise.all(
    rules.map(async ({ who }) => {
      if (who === 'HOST') return turn.fromHost;
      const name = who as string;
      const named = namedByHost?.(name);
      if (named !== undefined) return named === turn.correspondent;
      if (!trusts([name])) return !turn.fromHost;
      const id = await Promise.resolve(E(powers).identify(name)).catch(() => undefined);
      return typeof id === 'string' ? (formulaIdOf(id) ?? id) === turn.correspondent : !turn.fromHost;
    }),
  );
  return outcomes.includes(true);
};

/** The tool as a grant names it; undefined when a tool from tools/ cannot be identified (no grant then). */
const grantedTool = async ({ powers }: ApprovalsOptions, name: string, petName: string | undefined, method?: string): Promise<GrantedTool | undefined> => {
  if (petName === undefined) return harden({ tool: name, toolId: undefined });
  const id = await Promise.resolve(E(powers).identify(TOOLS_DIRECTORY, petName)).catch(() => undefined);
  if (typeof id !== 'string') return undefined;
  return harden({ tool: name, toolId: formulaIdOf(id) ?? id, ...(method === undefined ? {} : { method }) });
};

/** What asking the host needs besides the options: the requests' tags and the audit log. */
interface Asking {
  readonly options: ApprovalsOptions;
  readonly tagOf: ReturnType<typeof makeRequestTags>;
  readonly audit: ReturnType<typeof auditWith>;
}

/** Asks the host and waits, bounded; what the answer means for the call. */
const askHost = async (
  { options, tagOf, audit }: Asking,
  ask: ApprovalAsk,
  tool: Grantable,
  origin: { petName?: string; ownName?: string; method?: string; capabilityArgs?: readonly string[] },
  mayHaveRun = false,
) => {
  const { grants, hostWait, channel, redact, tellHost } = options;
  const { name, turn } = ask;
  const started = Date.now();
  // The host approves exactly what runs: arguments it cannot be shown whole are refused unasked.
  const unshown = unshownArguments(ask.args, redact);
  if (unshown !== undefined) {
    audit(ask, 'denied', 'fae', started, unshown);
    return refused(unshown);
  }
  const tag = tagOf(turn.messageKey, `${name}\n${JSON.stringify(ask.args)}`);
  const call = { tool: name, ...origin, args: ask.args, asker: turn.sender, askerIsHost: turn.fromHost, about: turn.about, tag, mayHaveRun };
  const choices = harden(
    tool === 'never' ? {} : { always: `from now on ${name} needs no approval in ${turn.fromHost ? 'your' : `${senderWord(turn.sender)}'s`} turns` },
  );
  const text = approvalText(call, { waitText: hostWait.waitText, answering: channel.answering(choices) });
  const outcome = await hostWait.wait(text, choices, name, ask);
  switch (outcome.kind) {
    case 'answer':
      return decide({ grants, tellHost, audit }, ask, outcome.answer, tool, started);
    case 'timeout':
      audit(ask, 'denied', 'timeout', started);
      return refused(`The host did not answer within ${hostWait.waitText}, so this was not run. Go on without it, or tell the sender it needs the host's approval.`);
    case 'abandoned':
      audit(ask, 'abandoned', 'cancellation', started);
      throw outcome.error;
    default: {
      const problem = redact(outcome.problem instanceof Error ? outcome.problem.message : String(outcome.problem));
      audit(ask, 'denied', 'failure', started, problem);
      return refused(`The host's approval could not be asked for (${problem}), so this was not run.`);
    }
  }
};

/**
 * A tool whose every call the host reviews (evaluate): code that holds a
 * secret is not sent at all; on February the call itself is the request
 * (the daemon's eval-request), so the turn waits through it; elsewhere
 * fae asks first, and no answer makes it standing.
 */
const review = async (asking: Asking, ask: ApprovalAsk): Promise<ApprovalOutcome> => {
  const { options, audit } = asking;
  const { hostWait, redact, reviewed } = options;
  const source = typeof ask.args.source === 'string' ? ask.args.source : '';
  const started = Date.now();
  if (redact(source) !== source) {
    audit(ask, 'denied', 'fae', started, 'the code holds what looks like a secret');
    return refused('The code holds what looks like a secret, so it was neither shown to the host nor run. Write it without the secret.');
  }
  if (!reviewed?.byDaemon) return askHost(asking, ask, 'never', {});
  ask.onWait?.(ask.name);
  const unpark = ask.park?.();
  const release = hostWait.hold();
  const after = (error?: unknown) => {
    release();
    unpark?.();
    const reason = error === undefined ? '' : redact(error instanceof Error ? error.message : String(error));
    audit(ask, error === undefined ? 'approved' : 'denied or failed', "host, by the daemon's eval-request", started, reason);
  };
  return harden({ run: true, waitsMs: hostWait.timeoutMs, after });
};

export const makeApprovals = (options: ApprovalsOptions) => {
  const { policy, grants, hostWait, logger, redact, reviewed, approvedCalls } = options;
  const audit = auditWith(logger, redact);
  const asking: Asking = { options, tagOf: makeRequestTags(), audit };

  /** Whether the call may run now; resolves once the host has answered, if it must. */
  const gate = async (ask: ApprovalAsk): Promise<ApprovalOutcome> => {
    const { name, tools, turn } = ask;
    if (!tools.toolMap.has(name)) return RUN; // executeTool says there is no such tool
    if (reviewed?.is(tools.toolMap.get(name))) return review(asking, ask);
    const origin = tools.origins.get(name);
    const current = policy.current();
    if (current.none) return RUN;
    const named = rulesNaming(current, { offered: name, ownName: origin?.ownName, petName: origin?.petName });
    const ownAsk = (origin?.needsApproval ?? false) && !isMarkedReadOnly(current, { offered: name, ...origin });
    const needed = ownAsk || (named.length > 0 && (await rulesApply(options, named, turn)));
    if (!needed) return RUN;
    const started = Date.now();
    // Not even a standing grant sends fae's secrets, or what could hide them, to a consequential tool.
    const unshown = unshownArguments(ask.args, redact);
    if (unshown !== undefined) {
      audit(ask, 'denied', 'fae', started, unshown);
      return refused(unshown);
    }
    const tool = await grantedTool(options, name, origin?.petName, origin?.method);
    // Approved before a restart, and maybe run: no grant covers it again (approved-calls.ts).
    const again = approvedCalls?.mayHaveRun(turn.messageKey, name, ask.args) ?? false;
    const grant = tool === undefined || again ? undefined : await grants.find(tool, turn.correspondent);
    const outcome = grant === undefined ? await askHost(asking, ask, tool, { petName: origin?.petName, ownName: origin?.ownName, method: origin?.method, capabilityArgs: origin?.capabilityArgs }, again) : RUN;
    if (grant !== undefined) audit(ask, 'approved', `standing grant #${grant.number}`, started);
    if (outcome.run) await approvedCalls?.willRun(turn.messageKey, name, ask.args);
    return outcome;
  };

  return harden({
    gate,
    /** The turn of message `messageKey` is stored: its approved calls will not be made again. */
    settled: (messageKey: string) => approvedCalls?.settled(messageKey) ?? Promise.resolve(),
    /** For status(): the policy, where it comes from, the grants, and the calls waiting now. */
    status: () =>
      harden({
        policy: policy.current().text,
        policyFrom: policy.source(),
        timeoutMs: hostWait.timeoutMs,
        waiting: hostWait.waiting(),
        grants: grants.list(),
      }),
    revoke: (number: number) => grants.revoke(number),
  });
};
harden(makeApprovals);
export type Approvals = ReturnType<typeof makeApprovals>;

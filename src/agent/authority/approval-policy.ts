// What needs the host's approval before it runs (issue 22): FAE_APPROVE, or
// the value `approval-policy` the host may store in fae's directory to
// change it while fae runs. The text is a list separated by commas:
//
//   default           runCommand, writeFile, editFile and edit (and their
//                     pet names run-command, write-file, edit-file)
//   none              nothing, not even what a tool asks for itself
//   all               every tool call, the built-ins' included
//   NAME              a built-in's name, or a tool's schema name or its
//                     pet name under tools/
//   NAME@WHO          that tool only in the turns of WHO: a pet name fae's
//                     directory holds for a correspondent, or HOST (@host)
//   readonly:NAME     a capability that is not a FaeTool (by its pet name
//                     under tools/), or one method of it (PET.METHOD), runs
//                     unasked: its calls only read. Such methods ask by
//                     default; a rule naming it still asks.
//
// `all@alice` asks for every call alice's turns make. A tool whose schema
// says `needsApproval: true` is asked for whatever the list says, unless it
// is `none`. An explicit list replaces the default: `default,send` adds to it.
//
// Whom WHO means is decided by identity, not by the spelling of a sender's
// name: fae's directory is asked what WHO names, and that is compared with
// the sender of the turn (approvals.ts).
import { q } from '@endo/errors';
import { isPetName } from '../../daemon/pet-name.js';

/** One item of the list: a tool (or every tool) everywhere, or in one correspondent's turns. */
export interface ApprovalRule {
  /** A tool name, or '*' for every tool. */
  readonly tool: string;
  /** A pet name, or 'HOST' for the host; undefined for everyone. */
  readonly who?: string;
}

export interface ApprovalPolicy {
  /** `none`: nothing is asked for, whatever a tool says of itself. */
  readonly none: boolean;
  readonly rules: readonly ApprovalRule[];
  /** What the host marked as only reading (readonly:NAME): its own ask is lifted. */
  readonly readOnly: readonly string[];
  /** The policy as the host wrote it, for status() and /approvals. */
  readonly text: string;
}

/** The tools that write files or run commands, by their schema names and the pet names the setup gives them. */
export const DEFAULT_APPROVAL_TOOLS = harden(['runCommand', 'writeFile', 'editFile', 'edit', 'run-command', 'write-file', 'edit-file']);

/** What `default` means, in words for the host (/approvals). */
export const DEFAULT_APPROVAL_WORDS = 'runCommand, writeFile, editFile and edit';

const TOOL_NAME = /^[A-Za-z0-9_-]{1,128}$/;
const HOST_NAMES = harden(['HOST', '@host']);

const SYNTAX =
  'a list separated by commas of default, all, none, or tool names, each optionally followed by @ and the pet name of a correspondent (or HOST), as in "default,send@alice", and readonly:NAME for a capability (or PET.METHOD) whose calls only read';

const READ_ONLY_PREFIX = 'readonly:';
const READ_ONLY_NAME = /^[A-Za-z0-9_-]{1,128}(\.[^\s,]{1,128})?$/;

/** One item of the list, as rules. */
const rulesOf = (item: string, source: string): readonly ApprovalRule[] => {
  const at = item.indexOf('@', 1);
  const tool = at < 0 ? item : item.slice(0, at);
  const who = at < 0 ? undefined : item.slice(at + 1);
  if (who !== undefined && !isPetName(who) && !HOST_NAMES.includes(who)) {
    throw Error(`${source}: ${q(who)} in ${q(item)} is neither a pet name nor HOST; it must be ${SYNTAX}`);
  }
  const withWho = (name: string): ApprovalRule => harden(who === undefined ? { tool: name } : { tool: name, who: HOST_NAMES.includes(who) ? 'HOST' : who });
  if (tool === 'default') return DEFAULT_APPROVAL_TOOLS.map(withWho);
  if (tool === 'all') return [withWho('*')];
  if (!TOOL_NAME.test(tool)) throw Error(`${source}: ${q(item)} is not a tool name; it must be ${SYNTAX}`);
  return [withWho(tool)];
};

/** Reads a policy's text; `source` names where it came from, for the error. */
export const readApprovalPolicy = (text: string | undefined, source = 'FAE_APPROVE'): ApprovalPolicy => {
  const trimmed = (text ?? '').trim();
  if (trimmed === '') return readApprovalPolicy('default', source);
  const items = trimmed.split(',').map(item => item.trim());
  if (items.some(item => item === '')) throw Error(`${source} has an empty item in ${q(trimmed)}; it must be ${SYNTAX}`);
  if (items.includes('none')) {
    if (items.length > 1) throw Error(`${source}: none cannot be combined with other items, as in ${q(trimmed)}`);
    return harden({ none: true, rules: [], readOnly: [], text: 'none' });
  }
  const readOnly = items.filter(item => item.startsWith(READ_ONLY_PREFIX)).map(item => item.slice(READ_ONLY_PREFIX.length));
  const wrong = readOnly.find(name => !READ_ONLY_NAME.test(name));
  if (wrong !== undefined) throw Error(`${source}: ${q(READ_ONLY_PREFIX + wrong)} names no capability; it must be ${SYNTAX}`);
  const rules = items.filter(item => !item.startsWith(READ_ONLY_PREFIX)).flatMap(item => rulesOf(item, source));
  // Only read-only marks: the default list still holds beside them.
  const withDefault = rules.length === 0 ? rulesOf('default', source) : rules;
  return harden({ none: false, rules: withDefault, readOnly, text: items.join(',') });
};
harden(readApprovalPolicy);

/** How a tool is known: the name the model calls it by, and, for one under tools/, its own names. */
export interface ToolNames {
  readonly offered: string;
  readonly ownName?: string;
  readonly petName?: string;
}

/** The rules of `policy` that name this tool (or every tool). */
export const rulesNaming = (policy: ApprovalPolicy, tool: ToolNames): readonly ApprovalRule[] => {
  const names = [tool.offered, tool.ownName, tool.petName].filter(name => name !== undefined);
  return policy.rules.filter(rule => rule.tool === '*' || names.includes(rule.tool));
};
harden(rulesNaming);

/**
 * Whether the host marked the tool as only reading: the capability (its pet
 * name) or this method of it (PET.METHOD), or the tool by its offered name.
 */
export const isMarkedReadOnly = (policy: ApprovalPolicy, tool: ToolNames & { readonly method?: string }) =>
  [tool.offered, tool.petName, tool.method === undefined ? undefined : `${tool.petName}.${tool.method}`].some(
    name => name !== undefined && policy.readOnly.includes(name),
  );
harden(isMarkedReadOnly);

/** The sealed name under which the host may store a policy that replaces FAE_APPROVE while fae runs. */
export const POLICY_NAME = 'approval-policy';

/**
 * The policy in force: FAE_APPROVE's, or the text the host stored under
 * POLICY_NAME. A stored value fae cannot read leaves FAE_APPROVE's in
 * force, and the host is told why.
 */
export const makeApprovalPolicyHolder = ({
  fromEnv,
  logger,
  tellHost,
}: {
  readonly fromEnv: ApprovalPolicy;
  readonly logger: { event(name: string, fields?: Record<string, unknown>): void; warn(name: string, fields?: Record<string, unknown>): void };
  readonly tellHost: (text: string) => Promise<void>;
}) => {
  let current = fromEnv;
  let source: 'FAE_APPROVE' | typeof POLICY_NAME = 'FAE_APPROVE';
  return harden({
    current: () => current,
    source: () => source,
    /** Takes the value stored under POLICY_NAME (undefined: none, FAE_APPROVE's holds). */
    useValue: (value: unknown) => {
      if (value === undefined) {
        [current, source] = [fromEnv, 'FAE_APPROVE'];
        logger.event('approval-policy-changed', { policy: current.text, from: source });
        return;
      }
      try {
        if (typeof value !== 'string') throw Error(`${POLICY_NAME} must be a text, not ${q(typeof value)}`);
        [current, source] = [readApprovalPolicy(value, POLICY_NAME), POLICY_NAME];
        logger.event('approval-policy-changed', { policy: current.text, from: source });
      } catch (error) {
        const problem = error instanceof Error ? error.message : String(error);
        [current, source] = [fromEnv, 'FAE_APPROVE'];
        logger.warn('approval-policy-unreadable', { error: problem });
        tellHost(`I could not read the approval policy you stored: ${problem}. Until you store one I can read, FAE_APPROVE's holds: ${fromEnv.text}.`).catch(
          error2 => logger.warn('host-report-failed', { kind: 'approval-policy', error: error2 }),
        );
      }
    },
  });
};
harden(makeApprovalPolicyHolder);
export type ApprovalPolicyHolder = ReturnType<typeof makeApprovalPolicyHolder>;

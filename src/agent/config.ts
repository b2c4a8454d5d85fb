// fae's own settings (the FAE_* variables), read once from the caplet's env
// and frozen. The LLM settings (LAL_*) belong to providers/config.ts.
import { DEFAULT_CONTEXT_TOKENS, stallMsOf } from '../../providers/config.js';
import { BUILT_IN_GROUP_NAMES, type BuiltInGroup } from '../toolbox/built-ins/built-in-tools.js';
import { q } from '@endo/errors';
import { HELD_LIMIT } from '../conversations/held.js';
import { readPrices, type Prices } from '../usage/prices.js';
import { isPetName } from '../daemon/pet-name.js';
import { readApprovalPolicy, type ApprovalPolicy } from './authority/approval-policy.js';

export interface FaeConfig {
  /**
   * The host's name for this fae (FAE_NAME): the guest the setup scripts
   * made for it. Said in its ready message and log lines, so a host with
   * several faes can tell them apart.
   */
  readonly name: string;
  /**
   * The host's own instructions (FAE_SYSTEM_PROMPT), which follow fae's in
   * its system prompt; undefined for none.
   */
  readonly hostPrompt: string | undefined;
  /** Model calls allowed for one incoming message (FAE_MAX_ITERATIONS). */
  readonly maxIterations: number;
  /** Upper bound on one tool call, in ms (FAE_TOOL_TIMEOUT_MS). */
  readonly toolTimeoutMs: number;
  /** Upper bound on probing one introduced capability at startup, in ms. */
  readonly probeTimeoutMs: number;
  /**
   * How long a turn may go without an answer before fae posts a progress
   * reply (FAE_PROGRESS_AFTER_MS; five times as long where it cannot edit).
   */
  readonly progressAfterMs: number;
  /**
   * Answered messages per thread kept open to their sender's edits, where
   * fae can edit its answer (FAE_EDITABLE_TURNS; 0 for none), and for how
   * long (FAE_EDITABLE_MS).
   */
  readonly editableTurns: number;
  readonly editableMs: number;
  /** The providers' LAL_STALL_MS, which progress replies pace themselves by. */
  readonly stallMs: number;
  /** The groups of built-ins offered to the model (FAE_BUILTINS; all by default). */
  readonly builtIns: readonly BuiltInGroup[];
  /** Tokens per correspondent per day (FAE_BUDGET_TOKENS); undefined: no budget. */
  readonly budgetTokens: number | undefined;
  /** Whether the host's messages count against the budget too (FAE_BUDGET_HOST). */
  readonly budgetHost: boolean;
  /**
   * Model turns a correspondent (not the host) may start within a minute
   * (FAE_TURNS_PER_MINUTE; 0 for no limit), and how long one past it gets
   * no model answer (FAE_PAUSE_MS): two agents answering each other stop.
   */
  readonly turnsPerMinute: number;
  readonly pauseMs: number;
  /** Turns that may run at once, each in a different conversation (FAE_CONCURRENT_TURNS). */
  readonly concurrentTurns: number;
  /** Run the tool calls of one model response concurrently (FAE_PARALLEL_TOOLS). */
  readonly parallelTools: boolean;
  /** Dismiss each message once its turn is over (FAE_AUTO_DISMISS). */
  readonly autoDismiss: boolean;
  /** Log whole (redacted) transcripts (FAE_DEBUG=1). */
  readonly debug: boolean;
  /**
   * Messages one conversation keeps verbatim (FAE_MAX_TRANSCRIPT): past
   * it, the oldest turns are folded into the summary, as when the context
   * budget is reached (src/conversations/).
   */
  readonly maxTranscript: number;
  /**
   * Conversations kept in memory besides those in use
   * (FAE_HELD_CONVERSATIONS); one dropped is read back from the store when
   * its correspondent writes again.
   */
  readonly heldConversations: number;
  /**
   * Characters one tool result may put in the conversation
   * (FAE_MAX_TOOL_RESULT_CHARS); a longer one keeps its start and end.
   */
  readonly maxToolResultChars: number;
  /**
   * How fae finds the tools under tools/ (FAE_TOOL_DISCOVERY): `follow`
   * (the default) follows the directory's changes and reads a tool once;
   * `list` lists and reads every tool at each step of a turn, as fae did
   * before the live registry.
   */
  readonly toolDiscovery: 'follow' | 'list';
  /** Tokens one model request may carry (FAE_CONTEXT_TOKENS). */
  readonly contextTokens: number;
  /**
   * Tokens of tool definitions each request offers at most (FAE_TOOL_TOKENS):
   * past it, tools from tools/ wait in a catalogue the model searches (tool-budget.ts).
   */
  readonly toolTokens: number;
  /**
   * Exact ceiling on the non-system messages of every request
   * (LAL_MAX_MESSAGES), or undefined for none. Also read by providers/.
   */
  readonly maxMessages: number | undefined;
  /**
   * Prices of the model fae runs on, per million tokens (FAE_PRICES), for
   * the cost estimates of status() and the log; undefined for the built-in
   * table's (src/usage/prices.ts), if it knows the model.
   */
  readonly prices: Prices | undefined;
  /**
   * What needs the host's approval before it runs (FAE_APPROVE,
   * approval-policy.ts); the host may replace it while fae runs.
   */
  readonly approvalPolicy: ApprovalPolicy;
  /** How long a call waits for the host's approval before it counts as denied (FAE_APPROVAL_TIMEOUT_MS). */
  readonly approvalTimeoutMs: number;
  /**
   * Whether the model is offered `evaluate`, JavaScript the host reviews
   * before it runs (FAE_EVALUATE=review), or not at all (off).
   */
  readonly evaluate: 'off' | 'review';
}

export const DEFAULT_MAX_ITERATIONS = 30;
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;
export const DEFAULT_PROBE_TIMEOUT_MS = 5_000;
export const DEFAULT_MAX_TRANSCRIPT = 1_000;
export const DEFAULT_MAX_TOOL_RESULT_CHARS = 50_000;
export { DEFAULT_CONTEXT_TOKENS } from '../../providers/config.js';

/**
 * Tool definitions offered per request, in tokens: the built-ins (some
 * 2,300) and a few more, about 12 KB of JSON, which a 4B-class local model
 * carries beside a conversation; more tools wait in the catalogue.
 */
export const DEFAULT_TOOL_TOKENS = 3_000;
export const DEFAULT_CONCURRENT_TURNS = 4;
export const DEFAULT_PROGRESS_AFTER_MS = 1500;
export const DEFAULT_EDITABLE_TURNS = 2;
export const DEFAULT_EDITABLE_MS = 10 * 60_000;
export const DEFAULT_TURNS_PER_MINUTE = 8;
export const DEFAULT_PAUSE_MS = 10 * 60_000;
export const DEFAULT_FAE_NAME = 'fae';
export const DEFAULT_APPROVAL_TIMEOUT_MS = 10 * 60_000;
/**
 * The longest FAE_SYSTEM_PROMPT, in characters (some 4,000 tokens): it
 * goes with every request, so it is paid for on every model call and
 * takes room from the conversation within FAE_CONTEXT_TOKENS.
 */
export const MAX_HOST_PROMPT_CHARS = 16_000;

type Env = Readonly<Record<string, string | undefined>>;

const readInteger = (env: Env, name: string, fallback: number, least: number) => {
  const text = env[name];
  if (text === undefined || text.trim() === '') {
    return fallback;
  }
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < least) {
    throw Error(`${name} must be a ${least > 0 ? 'positive ' : ''}whole number, not ${q(text)}`);
  }
  return value;
};
const readPositiveInteger = (env: Env, name: string, fallback: number) => readInteger(env, name, fallback, 1);
const readWholeNumber = (env: Env, name: string, fallback: number) => readInteger(env, name, fallback, 0);

const readSwitch = (env: Env, name: string, fallback: boolean) => {
  const text = env[name];
  if (text === undefined || text.trim() === '') {
    return fallback;
  }
  switch (text.trim().toLowerCase()) {
    case '1':
    case 'true':
    case 'yes':
    case 'on':
      return true;
    case '0':
    case 'false':
    case 'no':
    case 'off':
      return false;
    default:
      throw Error(`${name} must be 1 or 0, not ${q(text)}`);
  }
};

/** FAE_BUILTINS: `all`, or groups separated by commas. */
const readBuiltInGroups = (env: Env): readonly BuiltInGroup[] => {
  const text = (env.FAE_BUILTINS ?? '').trim().toLowerCase();
  if (text === '' || text === 'all') return BUILT_IN_GROUP_NAMES;
  const asked = text.split(',').map(part => part.trim());
  const unknown = asked.find(part => !(BUILT_IN_GROUP_NAMES as readonly string[]).includes(part));
  if (unknown !== undefined) {
    throw Error(
      `FAE_BUILTINS must be all, or some of ${BUILT_IN_GROUP_NAMES.join(', ')} separated by commas; ${q(unknown)} is none of them`,
    );
  }
  // In the groups' own order, each once: the prompt and the tools stay the same whatever the order asked.
  return harden(BUILT_IN_GROUP_NAMES.filter(group => asked.includes(group)));
};

const readToolDiscovery = (env: Env): 'follow' | 'list' => {
  const text = (env.FAE_TOOL_DISCOVERY ?? '').trim().toLowerCase();
  if (text === '' || text === 'follow') return 'follow';
  if (text === 'list') return 'list';
  throw Error(`FAE_TOOL_DISCOVERY must be follow or list, not ${q(env.FAE_TOOL_DISCOVERY)}`);
};

const readEvaluate = (env: Env): 'off' | 'review' => {
  const text = (env.FAE_EVALUATE ?? '').trim().toLowerCase();
  if (text === '' || text === 'off') return 'off';
  if (text === 'review') return 'review';
  throw Error(`FAE_EVALUATE must be off or review, not ${q(env.FAE_EVALUATE)}`);
};

/** FAE_NAME: a pet name on every daemon generation; `fae` when unset. */
export const readFaeName = (env: Env): string => {
  const name = env.FAE_NAME?.trim() || DEFAULT_FAE_NAME;
  if (!isPetName(name)) {
    throw Error(
      `FAE_NAME must be a pet name (lowercase letters, digits and "-", beginning with a letter or digit), not ${q(env.FAE_NAME)}`,
    );
  }
  return name;
};
harden(readFaeName);

/** The length of a host prompt as an error tells it, or undefined when it is not too long. */
export const hostPromptExcess = (text: string): string | undefined =>
  text.length > MAX_HOST_PROMPT_CHARS
    ? `${text.length} characters long; fae takes at most ${MAX_HOST_PROMPT_CHARS}, as it goes with every model call: shorten it`
    : undefined;
harden(hostPromptExcess);

/** FAE_SYSTEM_PROMPT, without the blank lines around it; undefined when unset or blank. */
const readHostPrompt = (env: Env): string | undefined => {
  const text = env.FAE_SYSTEM_PROMPT?.trim();
  if (!text) return undefined;
  const excess = hostPromptExcess(text);
  if (excess !== undefined) throw Error(`FAE_SYSTEM_PROMPT is ${excess}`);
  return text;
};

export const readFaeConfig = (env: Env): FaeConfig =>
  harden({
    name: readFaeName(env),
    hostPrompt: readHostPrompt(env),
    maxIterations: readPositiveInteger(env, 'FAE_MAX_ITERATIONS', DEFAULT_MAX_ITERATIONS),
    toolTimeoutMs: readPositiveInteger(env, 'FAE_TOOL_TIMEOUT_MS', DEFAULT_TOOL_TIMEOUT_MS),
    probeTimeoutMs: readPositiveInteger(env, 'FAE_PROBE_TIMEOUT_MS', DEFAULT_PROBE_TIMEOUT_MS),
    concurrentTurns: readPositiveInteger(env, 'FAE_CONCURRENT_TURNS', DEFAULT_CONCURRENT_TURNS),
    progressAfterMs: readPositiveInteger(env, 'FAE_PROGRESS_AFTER_MS', DEFAULT_PROGRESS_AFTER_MS),
    stallMs: stallMsOf(env),
    editableTurns: readWholeNumber(env, 'FAE_EDITABLE_TURNS', DEFAULT_EDITABLE_TURNS),
    editableMs: readPositiveInteger(env, 'FAE_EDITABLE_MS', DEFAULT_EDITABLE_MS),
    parallelTools: readSwitch(env, 'FAE_PARALLEL_TOOLS', true),
    autoDismiss: readSwitch(env, 'FAE_AUTO_DISMISS', true),
    debug: readSwitch(env, 'FAE_DEBUG', false),
    maxTranscript: readPositiveInteger(env, 'FAE_MAX_TRANSCRIPT', DEFAULT_MAX_TRANSCRIPT),
    heldConversations: readPositiveInteger(env, 'FAE_HELD_CONVERSATIONS', HELD_LIMIT),
    maxToolResultChars: readPositiveInteger(env, 'FAE_MAX_TOOL_RESULT_CHARS', DEFAULT_MAX_TOOL_RESULT_CHARS),
    toolDiscovery: readToolDiscovery(env),
    builtIns: readBuiltInGroups(env),
    budgetTokens: env.FAE_BUDGET_TOKENS?.trim() ? readPositiveInteger(env, 'FAE_BUDGET_TOKENS', 1) : undefined,
    budgetHost: readSwitch(env, 'FAE_BUDGET_HOST', false),
    turnsPerMinute: readWholeNumber(env, 'FAE_TURNS_PER_MINUTE', DEFAULT_TURNS_PER_MINUTE),
    pauseMs: readPositiveInteger(env, 'FAE_PAUSE_MS', DEFAULT_PAUSE_MS),
    contextTokens: readPositiveInteger(env, 'FAE_CONTEXT_TOKENS', DEFAULT_CONTEXT_TOKENS),
    toolTokens: readPositiveInteger(env, 'FAE_TOOL_TOKENS', DEFAULT_TOOL_TOKENS),
    maxMessages: env.LAL_MAX_MESSAGES?.trim()
      ? readPositiveInteger(env, 'LAL_MAX_MESSAGES', 0)
      : undefined,
    prices: readPrices(env.FAE_PRICES),
    approvalPolicy: readApprovalPolicy(env.FAE_APPROVE),
    approvalTimeoutMs: readPositiveInteger(env, 'FAE_APPROVAL_TIMEOUT_MS', DEFAULT_APPROVAL_TIMEOUT_MS),
    evaluate: readEvaluate(env),
  });
harden(readFaeConfig);

// The top-level names of fae's directory that no built-in tool may reach
// (sealed-powers.ts): what fae keeps for itself and what the host sets for
// it. Each says what it holds, for the one refusal the model reads.
import type { SealedDirectory } from '../../toolbox/built-ins/sealed-powers.js';
import { CONVERSATIONS_DIRECTORY } from '../../conversations/store/store.js';
import { USAGE_NAME } from '../../usage/usage-store.js';
import { BUDGET_NAME } from '../limits/budget.js';
import { SETTINGS_NAME } from '../host/llm-settings.js';
import { POLICY_NAME } from './approval-policy.js';
import { GRANTS_NAME } from './approval-grants.js';
import { MODEL_NAMES_NAME } from './model-names.js';
import { APPROVED_CALLS_NAME } from './approved-calls.js';
import { ADOPTED_FROM_NAME } from './adopted-from.js';
import { HOST_NAMES_NAME } from './host-names.js';

export const SEALED_NAMES: readonly SealedDirectory[] = harden([
  { name: CONVERSATIONS_DIRECTORY, holds: "fae's private memory of its conversations" },
  { name: USAGE_NAME, holds: "fae's record of what its model calls cost" },
  { name: BUDGET_NAME, holds: "the host's budget for fae's model calls" },
  { name: SETTINGS_NAME, holds: "fae's language model settings" },
  { name: POLICY_NAME, holds: "the host's policy of what needs its approval" },
  { name: GRANTS_NAME, holds: "the host's standing approvals" },
  { name: MODEL_NAMES_NAME, holds: "fae's record of the names its model made" },
  { name: APPROVED_CALLS_NAME, holds: "fae's record of the calls the host approved" },
  { name: ADOPTED_FROM_NAME, holds: "fae's record of who gave it what" },
  { name: HOST_NAMES_NAME, holds: "the host's names for fae's correspondents" },
]);

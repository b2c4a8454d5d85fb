// What the message turns are made with (message-turn.ts), which closing a
// turn (turn-closing.ts) reads too, and what status() adds up over them.
import type { Provider } from '../../../providers/types.js';
import type { InboxMessage } from '../../daemon/adapter.js';
import type { MessageRecord } from '../../daemon/endo-types.js';
import type { AtStart } from './answered-at-start.js';
import type { Logger } from '../../logging/log.js';
import type { Redact } from '../../logging/redact.js';
import type { Conversations } from '../../conversations/conversations.js';
import type { DiscoveredTools } from '../../toolbox/discovered-tools.js';
import type { FaeConfig } from '../config.js';
import type { FaeEvents } from '../fae-events.js';
import type { HostReports } from '../host/host-reports.js';
import type { ApprovalsView, StatusView } from '../host/commands.js';
import type { UsageAccounts } from '../limits/usage-accounts.js';
import type { Budget } from '../limits/budget.js';
import type { Pace } from '../limits/pace.js';
import type { Approvals } from '../authority/approvals.js';
import type { Gives } from '../authority/fae-approvals.js';
import type { ContextWindow } from '../limits/context-window.js';
import type { Cancellation } from './cancellation.js';
import type { Deliver } from './deliver.js';
import type { ProgressReplies } from './progress-reply.js';
import type { EditableAnswers } from './editable-answers.js';
import type { OwnCopyWaits } from './own-copy-waits.js';
import type { TurnStates } from './turn-states.js';

/** What status() adds up over every turn. */
export interface Tally {
  handledMessages: number;
  inputTokens: number;
  outputTokens: number;
  lastError: string;
  /** When lastError happened (ISO), '' for never. */
  lastErrorAt: string;
}

export interface MessageTurnOptions {
  readonly config: FaeConfig;
  readonly logger: Logger;
  readonly redact: Redact;
  readonly conversations: Conversations;
  /** The provider, metered by the conversations (tokens.ts). */
  readonly provider: Provider;
  /** Whether fae has no model yet: set up without one, its host has not answered the settings form. */
  readonly settingUp?: () => boolean;
  /** The tools on offer now (the registry's view). */
  readonly offered: () => Promise<DiscoveredTools>;
  readonly deliver: Deliver;
  /** Dismisses a message; resolves whether it is gone. */
  readonly dismiss: (number: bigint) => Promise<boolean>;
  /** How the sender `from` (correspondent `correspondent`) is named to the model and the host. */
  readonly describeSender: (from: string, correspondent: string) => Promise<string>;
  readonly correspondentOf: (message: MessageRecord) => string;
  /** Whether `message` is fae's own copy of what it sent (its `from` is fae). */
  readonly isOwn: (message: MessageRecord) => boolean;
  readonly cancelled: Cancellation;
  readonly states: TurnStates;
  readonly tally: Tally;
  readonly events: FaeEvents;
  readonly progress: ProgressReplies;
  /** fae's own copies of its replies, picked out as they arrive. */
  readonly copies: OwnCopyWaits;
  /** Answered messages kept open to edits; none where fae cannot edit its answers. */
  readonly editable?: EditableAnswers;
  /** The thread a message goes to, for the bounds of editable answers (a hint). */
  readonly threadOf: (message: InboxMessage) => string;
  /** What fae's inbox showed of its replies when fae started (answered-at-start.ts): answered messages, unfinished replies. */
  readonly atStart: AtStart;
  /**
   * A reply a restart left unfinished was taken over by a turn that has
   * ended now (its answer edited in): fae's own copy of it may be placed,
   * which before could have dismissed it while it was still to be edited.
   */
  readonly leftReplyDone?: (copy: bigint) => void;
  /** Whether a message comes from fae's host, who reads the operator's detail. */
  readonly isFromHost: (message: MessageRecord) => boolean;
  /** The host's budget of tokens per correspondent per day (budget.ts). */
  readonly budget: Budget;
  /** The guard against correspondents that write faster than a person (pace.ts). */
  readonly pace: Pace;
  /** The host's reports of trouble in others' turns, once per kind per ten minutes. */
  readonly reports: HostReports;
  /** fae's status(), for /status. */
  readonly status: () => StatusView;
  /** /settings: mails the host the settings form (false where there are no forms). */
  readonly askSettings: () => boolean;
  /** The host's words for the settings a text names (LAL_HOST…): the form's, when the host gave them there. */
  readonly hostWords?: (text: string) => string;
  /** What each turn cost, per correspondent and model. */
  readonly usage: UsageAccounts;
  /** The host's approval of the calls that need it (approvals.ts); every call runs without. */
  readonly approvals?: Approvals;
  /** The gate before anything fae holds is handed over, and what notes who gave fae what (approval-gives.ts); without it only the host is given anything. */
  readonly gives?: Gives;
  /**
   * Whether a tool from tools/ (of formula id `id`) may be offered in the
   * turns of `correspondent`: a tool a correspondent mailed is offered in
   * its turns and the host's only (adopted-from.ts). Every one without it.
   */
  readonly mayUse?: (id: string | undefined, correspondent: string, isHost: boolean) => boolean;
  /** How many tokens one request may hold (context-window.ts), and the server's word on it (asked once per provider). */
  readonly contextWindow?: ContextWindow;
  readonly serverWindow?: () => Promise<number | undefined>;
  /** /name WHO NAME: the host names a correspondent (host-names.ts); resolves to what to tell it. */
  readonly nameCorrespondent?: (who: string, name: string) => Promise<string>;
  /** What /approvals shows (status().approvals). */
  readonly approvalsView?: () => ApprovalsView;
  /** /revoke N: revokes a standing grant; resolves whether there was one. */
  readonly revokeGrant?: (number: number) => Promise<boolean>;
}

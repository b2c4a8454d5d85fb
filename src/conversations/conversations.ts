// src/conversations/: one private conversation per correspondent and thread,
// persisted in fae's directory and kept within a context budget. It imports
// src/daemon and the layers below (scripts/check-imports.mjs). See
// README.md, "Conversations".
//
// The conversations fae holds, one per correspondent and thread. This
// file wires the parts, each in its own file:
//
//   conversation-state.ts        what fae holds of one conversation
//   conversation-memory.ts       held, read back (store/store.ts), or new; the
//                                store kept in step, also while it refuses
//                                (store/store-sync.ts)
//   thread-finder.ts             which thread a message opens (threads.ts)
//   turn-lines.ts                one turn at a time per conversation, in order
//   open-turns.ts                a message's turn: opened, then recorded or dropped
//   requests/requests.ts         what each model request carries, within budget
//                                (requests/compaction.ts, requests/window.ts)
//   requests/request-meter.ts    the estimate of each request against what it cost
//   own-copies/own-copy-links.ts fae's own copies linking threads to its answers
//   own-copies/link-writes.ts    those links stored when no next turn comes soon
//   forget.ts                    forgetting a correspondent
//   status.ts                    what status() says of them
//
// fae.ts opens a turn per message; turn.ts asks the turn for each request.
// Turns of different conversations may be open at the same time; those of
// one conversation never overlap.
import type { ChatMessage, Provider, Usage } from '../../providers/types.js';
import type { GuestPowers, Ref } from '../daemon/endo-types.js';
import type { Logger } from '../logging/log.js';
import type { Redact } from '../logging/redact.js';
import { makeCompaction } from './requests/compaction.js';
import { makeConversationMemory } from './conversation-memory.js';
import { makeForget } from './forget.js';
import { makeLinkWrites } from './own-copies/link-writes.js';
import { makeTurnOpening } from './open-turns.js';
import { makeOwnCopies } from './own-copies/own-copies.js';
import { makeOwnCopyLinks } from './own-copies/own-copy-links.js';
import { makeRequestMeter } from './requests/request-meter.js';
import { makeRequests } from './requests/requests.js';
import { conversationsStatus } from './status.js';
import { makeConversationStore } from './store/store.js';
import { makeThreadFinder } from './thread-finder.js';
import { makeTurnLines } from './turn-lines.js';

export type { OpenTurn } from './open-turns.js';

export interface ConversationLimits {
  /** FAE_CONTEXT_TOKENS: what one request may carry. */
  readonly contextTokens: number;
  /** LAL_MAX_MESSAGES: exact ceiling on non-system messages per request. */
  readonly maxMessages: number | undefined;
  /** FAE_MAX_TRANSCRIPT: verbatim messages one conversation keeps. */
  readonly maxTranscript: number;
  /** FAE_HELD_CONVERSATIONS: conversations kept in memory besides those in use. */
  readonly heldConversations?: number;
}

export interface ConversationsOptions {
  readonly provider: Provider;
  readonly limits: ConversationLimits;
  readonly systemPrompt: string;
  readonly redact: Redact;
  readonly logger: Logger;
  /** Told of what each summary cost (as far as the provider said), and whose conversation it was made for. */
  readonly onUsage?: (usage: Usage | undefined, correspondent: string) => void;
  /**
   * Dismisses fae's own copies (by number) once nothing needs them any
   * more: what they teach is stored, or their conversation is forgotten.
   */
  readonly dismissOwnCopies?: (numbers: readonly bigint[]) => Promise<void>;
  /** How long own copies wait for their conversation's next turn before their links are stored on their own (link-writes.ts). */
  readonly linkPauseMs?: number;
  /** How long a turn that replied waits for the own copy of its answer, to store its link with it (own-copy-links.ts). */
  readonly answerCopyWaitMs?: number;
}

export const makeConversations = (
  powers: Ref<GuestPowers>,
  {
    provider,
    limits,
    systemPrompt,
    redact,
    logger,
    onUsage,
    dismissOwnCopies = async () => {},
    linkPauseMs,
    answerCopyWaitMs,
  }: ConversationsOptions,
) => {
  const store = makeConversationStore(powers, logger);
  const memory = makeConversationMemory(store, { logger, redact, heldLimit: limits.heldConversations });
  const { sync } = memory;
  const lines = makeTurnLines();
  /**
   * fae's own copies whose link to a thread is not stored yet. After a
   * restart they come back with the replay, and wait there until their
   * conversation has been read back and writes its next record.
   */
  const ownCopies = makeOwnCopies();
  const threads = makeThreadFinder({ memory, store, ownCopies, lines });
  const links = makeOwnCopyLinks({
    ownCopies,
    keyOf: async (id, correspondent) => (await threads.placeOf(id, correspondent))?.key,
    storeReadable: () => sync.listed() && sync.status().storage === 'ok',
    logger,
    dismissOwnCopies,
    // From the ids of the conversations held, with no daemon call; a copy
    // that comes before its conversation is read back is caught when its
    // link would be written (open-turns.ts, link-writes.ts).
    isLinked: (id, key) => memory.held.keyOfId(id) === key,
    waiting: (key, correspondent) => linkWrites.waiting(key, correspondent),
    answerWaitMs: answerCopyWaitMs,
  });
  const linkWrites = makeLinkWrites({ memory, lines, links, logger, pauseMs: linkPauseMs });
  const systemMessage: ChatMessage = harden({ role: 'system', content: systemPrompt });
  const meter = makeRequestMeter();
  const compact = makeCompaction({
    provider,
    limits,
    systemMessage,
    redact,
    logger,
    onUsage,
    amend: sync.amend,
    // Folded past what the conversation keeps: the index of ids lets them go too.
    onLetGo: (conversation, ids) => ids.forEach(id => memory.held.forgetId(id, conversation.key)),
    scale: meter.scale,
  });
  const requests = makeRequests({ limits, systemMessage, compact, meter });

  return harden({
    /**
     * Reads which conversations are stored (creating the directory when
     * the daemon says there is none). A refusal is logged and retried in
     * the background; fae answers meanwhile without storing.
     */
    start: async () => {
      await sync.ensureListed();
    },
    /** Ends the background retry (fae is cancelled). */
    stop: () => {
      sync.stop();
      linkWrites.stop();
    },
    open: makeTurnOpening({ memory, lines, threads, links, requests, redact }),
    /** The scheduling lane of a message (thread-finder.ts): a hint; open() decides, and keeps one conversation's turns in order. */
    laneOf: threads.laneOf,
    forget: makeForget({ memory, store, lines, links, logger, redact }),
    /**
     * fae's own copy of a message it sent: links threads (threads.ts).
     * Resolves once a copy that teaches nothing (no reply) is dismissed;
     * one that does waits for its conversation's next record.
     */
    noteOwnMessage: links.note,
    /** The provider, learning how the estimate compares with reported usage. */
    meter: meter.metered,
    status: () => conversationsStatus(memory, store, requests.headOf),
  });
};
harden(makeConversations);
export type Conversations = ReturnType<typeof makeConversations>;

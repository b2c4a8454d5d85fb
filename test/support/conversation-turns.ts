// Conversations (src/conversations/) driven by a test without fae: kept
// in a fresh local daemon's store, given made-up messages, their turns
// answered by the test.
import type { ExecutionContext } from 'ava';
import type { Provider } from '../../providers/types.js';
import { makeConversations, type ConversationsOptions, type OpenTurn } from '../../src/conversations/conversations.js';
import type { GuestPowers, MessageRecord, Ref } from '../../src/daemon/endo-types.js';
import { silentLogger } from '../../src/logging/log.js';
import { makeRedactor } from '../../src/logging/redact.js';
import { makeLocalDaemon } from './daemon.js';

export const SYSTEM_PROMPT = 'You are fae.';

/** No summary is asked for in these tests: the budget is never reached. */
export const noProvider: Provider = harden({
  kind: 'openai',
  model: 'none',
  chat: async () => {
    throw Error('no model call was expected');
  },
});

/**
 * Conversations kept in a fresh local daemon's store, on its host's powers
 * (which have every method fae's guest powers have) or on what `wrap`
 * makes of them; `again()` makes others on the same store, as a restart
 * does. Each is stopped when the test ends.
 */
export const setUpConversations = async (
  t: ExecutionContext,
  {
    wrap = async powers => powers,
    options = {},
  }: {
    readonly wrap?: (powers: Ref<GuestPowers>) => Promise<Ref<GuestPowers>>;
    readonly options?: Partial<ConversationsOptions>;
  } = {},
) => {
  const daemon = makeLocalDaemon();
  t.teardown(() => daemon.stop());
  const powers = await wrap((await daemon.host) as Ref<GuestPowers>);
  const make = async () => {
    const conversations = makeConversations(powers, {
      provider: noProvider,
      limits: { contextTokens: 100_000, maxMessages: undefined, maxTranscript: 1_000 },
      systemPrompt: SYSTEM_PROMPT,
      redact: makeRedactor([]),
      logger: silentLogger,
      ...options,
    });
    t.teardown(() => conversations.stop());
    await conversations.start();
    return conversations;
  };
  return { conversations: await make(), again: make };
};

let lastNumber = 0n;
/** A message `messageId` to fae, replying to `replyTo` when given. */
export const mail = (messageId: string, replyTo?: string): MessageRecord => {
  lastNumber += 1n;
  return harden({
    number: lastNumber,
    type: 'package',
    from: 'someone',
    to: 'fae',
    date: new Date(0).toISOString(),
    messageId,
    ...(replyTo === undefined ? {} : { replyTo }),
  });
};

/** What the next request of `turn` carries, as texts. */
export const requestTexts = async (turn: OpenTurn) =>
  (await turn.prepareRequest(turn.messages, harden([]))).map(message => message.content);

/** Answers `turn` with "answer to <its text>" and finishes it. */
export const answer = async (turn: OpenTurn) => {
  turn.messages.push(harden({ role: 'assistant', content: `answer to ${turn.messages[0].content}` }));
  await turn.finish();
};

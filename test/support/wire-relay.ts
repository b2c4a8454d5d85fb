// A provider that puts a real adapter and a loopback server between fae and
// a script: for each request, the script (any Provider, usually a scripted
// one) decides the answer from what fae asked, the loopback server is told
// to give that answer, and the request then goes to it through the real
// adapter, with every option fae gave (cache hints, onText, the signal).
// So the bodies on the wire, the streaming and the parsing are the real
// adapter's, while the conversation is scripted as in the in-process tests.
//
//   const server = await startLlmServer('anthropic');
//   const provider = relayThroughWire(llm.provider, server, createProvider(server.env()));
//
// One request at a time: answers are queued on the server in the order the
// requests are made, which holds for one conversation's turns.
import type { ChatResult, Provider } from '../../providers/types.js';
import type { LlmServer, ScriptedReply } from './llm-server.js';

/** The server's scripted form of an answer the script gave. */
export const asServerReply = ({ message, usage, stopReason }: ChatResult): ScriptedReply => ({
  ...(message.content === '' ? {} : { text: message.content }),
  ...(message.tool_calls === undefined || message.tool_calls.length === 0
    ? {}
    : { toolCalls: message.tool_calls.map(call => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })) }),
  // No usage unless the script says: the loopback's default counts would teach fae's token meter nonsense.
  usage: usage ?? null,
  ...(stopReason === 'end_turn' || stopReason === 'tool_use' || stopReason === 'max_tokens' ? { stopReason } : {}),
});

export interface RelayOptions {
  /** Changes each answer before the server gives it (a trickle, say). */
  readonly shape?: (reply: ScriptedReply) => ScriptedReply;
}

export const relayThroughWire = (
  script: Provider,
  server: LlmServer,
  adapter: Provider,
  { shape = reply => reply }: RelayOptions = {},
): Provider => ({
  kind: adapter.kind,
  model: adapter.model,
  chat: async (messages, tools, options = {}) => {
    // The script sees what a provider sees, less what would act on fae's turn.
    const decided = await script.chat(messages, tools, options.cache === undefined ? {} : { cache: options.cache });
    server.reply(shape(asServerReply(decided)));
    return adapter.chat(messages, tools, options);
  },
});
harden(relayThroughWire);

// What a stored conversation node holds, and the checks a node read back
// must pass. A node holds the JSON text of its record (storeValue); nodes
// stored before that hold the record itself, as plain copy data, and are
// read as ever. Every text is run through the redactor before it is
// stored, so no secret is ever kept.
import { q } from '@endo/errors';
import type { ChatMessage, ToolCall } from '../../../providers/types.js';
import type { Redact } from '../../logging/redact.js';
import { readStoredText } from '../../daemon/stored-text.js';
import { isRecord } from '../../is-record.js';

export const RECORD_VERSION = 1;

/** One finished turn: the user message and everything that followed it. */
export interface TurnRecord {
  readonly v: typeof RECORD_VERSION;
  readonly kind: 'turn';
  readonly correspondent: string;
  readonly thread: string;
  readonly seq: number;
  /** The incoming message's id, so a replay is not answered twice. */
  readonly messageId: string;
  readonly messages: readonly ChatMessage[];
  /**
   * Ids of messages fae sent in this conversation, learnt from its own
   * copies since the conversation's last record: with them stored, the
   * copies can be dismissed, and a reply to one still finds its thread
   * after a restart. Absent in records written before it existed.
   */
  readonly sent?: readonly string[];
}

/** A turn as a summary record carries it. */
export interface KeptTurn {
  readonly seq: number;
  readonly messageId: string;
  readonly messages: readonly ChatMessage[];
  readonly sent?: readonly string[];
}

/**
 * The head of a new generation of a conversation: the model-written summary
 * of every turn folded so far, and the turns kept verbatim after it.
 */
export interface SummaryRecord {
  readonly v: typeof RECORD_VERSION;
  readonly kind: 'summary';
  readonly correspondent: string;
  readonly thread: string;
  readonly seq: number;
  readonly text: string;
  readonly turns: readonly KeptTurn[];
  /**
   * Ids of the latest messages folded into the summary, so that a reply
   * to one still continues the thread. Absent in records written before
   * it existed, and when there are none.
   */
  readonly earlier?: readonly string[];
}

export type ConversationRecord = TurnRecord | SummaryRecord;

/**
 * Consecutive turns kept in one node (named by the first's sequence
 * number), so that reading a conversation back takes a lookup per chunk
 * rather than one per turn. The store (store.ts) writes a conversation's
 * latest chunk again with each turn until it is full; a chunk of one turn
 * is stored as that turn's record. Its turns are carried as a summary
 * carries its kept turns: the conversation is named once, for them all.
 */
export interface ChunkRecord {
  readonly v: typeof RECORD_VERSION;
  readonly kind: 'chunk';
  readonly correspondent: string;
  readonly thread: string;
  readonly seq: number;
  readonly turns: readonly KeptTurn[];
}

/**
 * `records` (consecutive turns, one at least) as one record, or as a
 * chunk: data for JSON.stringify alone, so not hardened (that would walk
 * every turn read back, which is frozen, not hardened: parseNode).
 */
const nodeRecord = (records: readonly ConversationRecord[]): ConversationRecord | ChunkRecord => {
  const [first] = records;
  if (records.length === 1) return first;
  return {
    v: RECORD_VERSION,
    kind: 'chunk' as const,
    correspondent: first.correspondent,
    thread: first.thread,
    seq: first.seq,
    turns: (records as readonly TurnRecord[]).map(({ seq, messageId, messages, sent }) => ({
      seq,
      messageId,
      messages,
      ...(sent === undefined ? {} : { sent }),
    })),
  };
};

/**
 * What a node holds: the JSON text of `records` as one record, or as a
 * chunk. Text rather than nested data, because CapTP copies a string
 * whole but walks a record of turns object by object, on both sides: a
 * lookup of a six-turn chunk took 1.1 ms as a record, 0.15 ms as its text
 * (and its storeValue likewise), about what a lookup of a number takes.
 */
export const nodeValue = (records: readonly ConversationRecord[]): string => JSON.stringify(nodeRecord(records));
harden(nodeValue);

/**
 * The record a node read back holds: its JSON text parsed (and frozen
 * all the way down, as every record fae keeps), or a record stored as
 * nested data before nodes were text. Throws when the text is not JSON.
 */
export const parseNode = (value: unknown, name: string): unknown =>
  readStoredText(value, () => `node ${q(name)} holds text that is not a record`);
harden(parseNode);

/** The node name for sequence number `seq`: a pet name in every dialect. */
export const nodeName = (seq: number) => `n${seq}`;
harden(nodeName);

export const seqOfNodeName = (name: string): number | undefined => {
  const match = /^n([1-9][0-9]{0,14})$/.exec(name);
  return match ? Number(match[1]) : undefined;
};
harden(seqOfNodeName);

const KEPT_FIELDS = new Set(['role', 'content', 'tool_calls', 'tool_call_id', 'name']);
const hasOnly = (value: object, fields: readonly string[]) => {
  const keys = Object.keys(value);
  return keys.length === fields.length && keys.every(key => fields.includes(key));
};

/**
 * Whether `message` is already what redactMessage would make of it: only
 * the fields a stored message keeps, none undefined, each tool call in
 * its plain form, and nothing that redact changes. The messages fae's
 * turns make (runTurn's) are; kept as they are, they are not copied and
 * hardened again for each request.
 */
const keepsAsIs = (message: ChatMessage, redact: Redact) =>
  Object.entries(message).every(([key, value]) => KEPT_FIELDS.has(key) && value !== undefined) &&
  redact(message.content) === message.content &&
  (message.tool_calls === undefined ||
    (message.tool_calls.length > 0 &&
      message.tool_calls.every(
        call =>
          hasOnly(call, ['id', 'type', 'function']) &&
          call.type === 'function' &&
          hasOnly(call.function, ['name', 'arguments']) &&
          redact(call.function.arguments) === call.function.arguments,
      )));

/** `message` with every text redacted and no undefined fields: itself if it is so already, else a copy. */
export const redactMessage = (message: ChatMessage, redact: Redact): ChatMessage => {
  if (keepsAsIs(message, redact)) return harden(message);
  const copy: {
    role: ChatMessage['role'];
    content: string;
    tool_calls?: ToolCall[];
    tool_call_id?: string;
    name?: string;
  } = { role: message.role, content: redact(message.content) };
  if (message.tool_calls !== undefined && message.tool_calls.length > 0) {
    copy.tool_calls = message.tool_calls.map(call => ({
      id: call.id,
      type: 'function' as const,
      function: { name: call.function.name, arguments: redact(call.function.arguments) },
    }));
  }
  if (message.tool_call_id !== undefined) copy.tool_call_id = message.tool_call_id;
  if (message.name !== undefined) copy.name = message.name;
  return harden(copy);
};
harden(redactMessage);

const ROLES = new Set(['user', 'assistant', 'tool']);

const checkMessage = (value: unknown, where: string): ChatMessage => {
  if (!isRecord(value) || typeof value.role !== 'string' || !ROLES.has(value.role)) {
    throw Error(`${where} is not a chat message`);
  }
  if (typeof value.content !== 'string') throw Error(`${where} has no text content`);
  if (value.tool_calls !== undefined) {
    if (!Array.isArray(value.tool_calls)) throw Error(`${where} has malformed tool calls`);
    for (const call of value.tool_calls) {
      if (
        !isRecord(call) ||
        typeof call.id !== 'string' ||
        !isRecord(call.function) ||
        typeof call.function.name !== 'string' ||
        typeof call.function.arguments !== 'string'
      ) {
        throw Error(`${where} has a malformed tool call`);
      }
    }
  }
  if (value.role === 'tool' && typeof value.tool_call_id !== 'string') {
    throw Error(`${where} is a tool result answering no call`);
  }
  return value as unknown as ChatMessage;
};

/**
 * The messages of a stored turn, checked as a provider would: the turn opens
 * with the user message, and every tool result answers a call of the
 * assistant message just before it.
 */
const checkTurnMessages = (value: unknown, where: string): readonly ChatMessage[] => {
  if (!Array.isArray(value) || value.length === 0) throw Error(`${where} holds no messages`);
  const messages = value.map((m, i) => checkMessage(m, `${where} message ${i}`));
  if (messages[0].role !== 'user') throw Error(`${where} does not open with the user's message`);
  let open = new Set<string>();
  messages.forEach((message, i) => {
    if (message.role === 'tool') {
      if (!open.has(message.tool_call_id ?? '')) {
        throw Error(`${where} message ${i} answers no call before it`);
      }
      return;
    }
    open = new Set((message.tool_calls ?? []).map(call => call.id));
    if (i > 0 && message.role === 'user') throw Error(`${where} has two user messages`);
  });
  return messages;
};

/** An optional list of message ids (`what` names it in the reason). */
const checkIds = (value: unknown, where: string, what = 'sent') => {
  if (value === undefined) return;
  if (!Array.isArray(value) || value.some(id => typeof id !== 'string')) {
    throw Error(`${where} has malformed ${what} message ids`);
  }
};

/** A turn as a summary or a chunk carries it; throws why it is malformed. */
const checkKeptTurn = (turn: unknown, where: string): KeptTurn => {
  if (!isRecord(turn) || typeof turn.seq !== 'number' || typeof turn.messageId !== 'string') {
    throw Error(`${where} is malformed`);
  }
  checkIds(turn.sent, where);
  checkTurnMessages(turn.messages, where);
  return turn as unknown as KeptTurn;
};

/**
 * Checks a value read back from node `name` of the conversation of
 * `correspondent` and `thread`. Throws a reason when it is corrupt or
 * belongs elsewhere.
 */
export const checkRecord = (
  value: unknown,
  name: string,
  correspondent: string,
  thread: string,
): ConversationRecord => {
  const where = `node ${q(name)}`;
  if (!isRecord(value)) throw Error(`${where} is not a record`);
  if (value.v !== RECORD_VERSION) throw Error(`${where} has unknown version ${q(value.v)}`);
  if (value.correspondent !== correspondent || value.thread !== thread) {
    throw Error(`${where} belongs to another conversation`);
  }
  if (value.seq !== seqOfNodeName(name)) throw Error(`${where} has sequence ${q(value.seq)}`);
  if (value.kind === 'turn') {
    if (typeof value.messageId !== 'string') throw Error(`${where} has no message id`);
    checkIds(value.sent, where);
    checkTurnMessages(value.messages, where);
    return value as unknown as TurnRecord;
  }
  if (value.kind === 'summary') {
    if (typeof value.text !== 'string' || !Array.isArray(value.turns)) {
      throw Error(`${where} is a malformed summary`);
    }
    checkIds(value.earlier, where, 'earlier');
    value.turns.forEach((turn: unknown, i: number) => checkKeptTurn(turn, `${where} kept turn ${i}`));
    return value as unknown as SummaryRecord;
  }
  throw Error(`${where} is of unknown kind ${q(value.kind)}`);
};
harden(checkRecord);

/**
 * The records a node read back holds (a record, or a chunk of turns:
 * nodeValue), each checked as checkRecord does; throws a reason when any
 * is corrupt or belongs elsewhere.
 */
export const checkNode = (
  value: unknown,
  name: string,
  correspondent: string,
  thread: string,
): readonly ConversationRecord[] => {
  if (!isRecord(value) || value.kind !== 'chunk') return [checkRecord(value, name, correspondent, thread)];
  const where = `node ${q(name)}`;
  if (value.v !== RECORD_VERSION) throw Error(`${where} has unknown version ${q(value.v)}`);
  if (value.correspondent !== correspondent || value.thread !== thread) {
    throw Error(`${where} belongs to another conversation`);
  }
  const first = seqOfNodeName(name);
  if (value.seq !== first || first === undefined) throw Error(`${where} has sequence ${q(value.seq)}`);
  if (!Array.isArray(value.turns) || value.turns.length < 2) throw Error(`${where} is a malformed chunk`);
  return value.turns.map((turn: unknown, i: number): TurnRecord => {
    const kept = checkKeptTurn(turn, `${where} turn ${i}`);
    if (kept.seq !== first + i) throw Error(`${where} turn ${i} has sequence ${q(kept.seq)}`);
    // Frozen, as what it holds (parseNode): hardening would walk it all.
    return Object.freeze({ v: RECORD_VERSION, kind: 'turn', correspondent, thread, ...kept });
  });
};
harden(checkNode);

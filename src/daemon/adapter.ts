// The one place in fae that knows which generation of the Endo daemon it
// lives in (../shared/spec/endo-guest-api-next.md §8). Made once at start
// from the guest powers, it answers in the dialect's terms and hands the
// rest of fae dialect-free facts: its own identity, who sent a message,
// the sender's names, a reader of normalized messages, reply and send, and
// paths into the mail hub.
import { E } from '@endo/far';
import type { Dialect, SpecialNames } from './dialect.js';
import { detectDialect, formulaIdOf, isFormulaId, specialNames } from './dialect.js';
import type { GuestPowers, MessageRecord, NameOrPath, Ref } from './endo-types.js';
import { makeFollowReader } from './follow-reader.js';
import { callNear } from './near-call.js';

/**
 * A message record with the fields every dialect can be asked for:
 * `done` is true unless an August edit marked the message unfinished,
 * `replyTo` is undefined unless it is a reply, and `senderId` is the
 * sender's raw formula id, the same string for every message of a sender
 * whatever the locator syntax or hints.
 */
export interface InboxMessage extends MessageRecord {
  readonly messageId: string | undefined;
  readonly replyTo: string | undefined;
  readonly done: boolean;
  readonly senderId: string;
}

export interface DaemonAdapter {
  /** The generation, for logs and status only: nothing else should branch on it. */
  readonly dialect: Dialect;
  /** The special names (host, self, mail, …) as this daemon spells them. */
  readonly names: SpecialNames;
  /**
   * fae's own handle as a raw formula id; undefined when the daemon would
   * not say (then no message counts as fae's own: the caller should warn).
   */
  readonly selfId: string | undefined;
  /** Whether a message is fae's own sent copy. */
  isOwnMessage(message: Pick<MessageRecord, 'from'>): boolean;
  /**
   * Whether a message comes from fae's host (who reads the operator's
   * detail); false for everyone when the daemon would not name the host.
   */
  isFromHost(message: Pick<MessageRecord, 'from'>): boolean;
  /** The raw id of a message's sender: one stable string per correspondent. */
  senderIdOf(message: Pick<MessageRecord, 'from'>): string;
  /** fae's pet names for a message's sender (`from`, or any raw id), `[]` if it has none. */
  senderNames(from: string): Promise<readonly string[]>;
  /** Replayed then new messages, normalized; fae's own copies included. */
  followMessages(): AsyncIterableIterator<InboxMessage>;
  /** Every message in the inbox, normalized. */
  listMessages(): Promise<readonly InboxMessage[]>;
  reply(
    number: bigint,
    strings: readonly string[],
    edgeNames?: readonly string[],
    petNames?: readonly NameOrPath[],
  ): Promise<void>;
  /**
   * Sends to a name or path. The host's special name is accepted in either
   * spelling (`HOST` or `@host`, likewise self, mail and agent) and
   * translated to this daemon's. `replyTo` (a message number in fae's
   * inbox) marks the message as an answer where the daemon can say so.
   */
  send(
    recipient: NameOrPath,
    strings: readonly string[],
    edgeNames?: readonly string[],
    petNames?: readonly NameOrPath[],
    replyTo?: bigint,
  ): Promise<void>;
  /**
   * Whether fae can edit what it sent (August's editMessage): a reply can
   * then grow from "Working on it…" into the answer.
   */
  readonly canEdit: boolean;
  /**
   * Replaces the text of fae's own sent message `number` (its copy's number
   * in fae's inbox); `done: false` marks it as still being written. Rejects
   * where the daemon cannot edit (canEdit false) or refuses.
   */
  edit(number: bigint, strings: readonly string[], done: boolean): Promise<void>;
  /**
   * Whether the daemon has its host review an evaluation before it runs
   * (February's requestEvaluation); elsewhere evaluate runs at once.
   */
  readonly reviewsEvaluation: boolean;
  /**
   * Evaluates `source` with endowments (code name → fae's name or path for
   * it): on February an eval-request to the host, answered once the host
   * approves it (or rejected); later at once, in a fresh worker.
   */
  evaluate(source: string, codeNames: readonly string[], petNames: readonly NameOrPath[]): Promise<unknown>;
  /** A name path with a special name in either spelling made this daemon's. */
  path(nameOrPath: NameOrPath): string[];
  /** The path of a message's entry in the mail hub, e.g. (3n, 'tool'). */
  mailPath(number: bigint, ...rest: string[]): string[];
}

// Both spellings of the specials a guest has, so the model (and a user
// who learnt the other generation) may write either.
const SPELLINGS: readonly (readonly [keyof SpecialNames, string, string])[] = [
  ['host', 'HOST', '@host'],
  ['self', 'SELF', '@self'],
  ['mail', 'MAIL', '@mail'],
  ['agent', 'AGENT', '@agent'],
];

const normalize = (record: MessageRecord, senderId: string): InboxMessage =>
  harden({
    ...record,
    messageId: typeof record.messageId === 'string' ? record.messageId : undefined,
    // Restored February records carry replyTo: undefined; treat alike.
    replyTo: typeof record.replyTo === 'string' ? record.replyTo : undefined,
    done: record.done !== false,
    senderId,
  });

/**
 * Finds out the dialect (with __getMethodNames__, which cannot fail) and
 * fae's own id and its host's, then returns the adapter. Two round trips,
 * once per start.
 */
/** A name or path with its first segment spelled as this daemon spells its special names. */
const pathTranslator = (names: SpecialNames) => {
  const translated = new Map<string, string>();
  for (const [role, old, current] of SPELLINGS) {
    translated.set(old, names[role]);
    translated.set(current, names[role]);
  }
  return (nameOrPath: NameOrPath): string[] => {
    const segments = typeof nameOrPath === 'string' ? [nameOrPath] : [...nameOrPath];
    if (segments.length > 0) segments[0] = translated.get(segments[0]) ?? segments[0];
    return segments;
  };
};

/** fae's mail as it comes, each message normalized (its sender's id read whatever the daemon's syntax). */
const followNormalized = (powers: Ref<GuestPowers>, senderIdOf: (message: Pick<MessageRecord, 'from'>) => string) => {
  const inner = makeFollowReader<MessageRecord>(E(powers).followMessages());
  const iterator: AsyncIterableIterator<InboxMessage> = harden({
    next: async (): Promise<IteratorResult<InboxMessage>> => {
      const result = await inner.next();
      return result.done ? result : harden({ done: false, value: normalize(result.value, senderIdOf(result.value)) });
    },
    // makeFollowReader always has both.
    return: (value?: unknown) => inner.return!(value) as Promise<IteratorResult<InboxMessage>>,
    throw: (error?: unknown) => inner.throw!(error) as Promise<IteratorResult<InboxMessage>>,
    [Symbol.asyncIterator]: () => iterator,
  });
  return iterator;
};

/** Evaluation as this daemon takes it (next spec §6): at once on May and August, as a request the host reviews on February. */
const evaluateOn = async (
  powers: Ref<GuestPowers>,
  febDialect: boolean,
  source: string,
  codeNames: readonly string[],
  petNames: readonly NameOrPath[],
) => {
  const endowed = harden(petNames.map(name => (typeof name === 'string' ? name : harden([...name]))));
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- evaluation differs by generation
  const agent = E(powers as any);
  if (!febDialect) return agent.evaluate(undefined, source, harden([...codeNames]), endowed);
  // February's daemon takes a path here and then breaks: it restarts the worker, and every later reply fails.
  const path = endowed.find(name => typeof name !== 'string');
  if (path !== undefined) {
    const shown = (path as readonly string[]).join('/');
    const top = (path as readonly string[]).at(-1) ?? shown;
    throw Error(
      `on this daemon evaluate takes names at the top of your directory only, not a path such as ${JSON.stringify(shown)}: ` +
        `copy it to a name of its own first (copy from ${JSON.stringify(shown)} to ${JSON.stringify(top)}), then endow that name ({"${codeNames[endowed.indexOf(path)] ?? 'x'}": ${JSON.stringify(top)}})`,
    );
  }
  return agent.requestEvaluation(source, harden([...codeNames]), endowed);
};

export const makeDaemonAdapter = async (powers: Ref<GuestPowers>): Promise<DaemonAdapter> => {
  const dialect = await detectDialect(powers);
  const names = specialNames(dialect);
  const febDialect = dialect === 'feb';
  // Serving mail matters more than these answers; the caller reports the lack of fae's own.
  const idOf = (name: string): Promise<string | undefined> =>
    Promise.resolve(E(powers).identify(name)).then(
      id => (typeof id === 'string' && id !== '' ? (formulaIdOf(id) ?? id) : undefined),
      () => undefined,
    );
  const [selfId, hostId] = await Promise.all([idOf(names.self), idOf(names.host)]);
  const view = await powers;

  const path = pathTranslator(names);

  // Mail carries raw ids on February and locators (either syntax, maybe
  // hinted) later; formulaIdOf reads all three.
  const senderIdOf = ({ from }: Pick<MessageRecord, 'from'>) => formulaIdOf(from) ?? from;

  return harden({
    dialect,
    names,
    selfId,
    isOwnMessage: (message: Pick<MessageRecord, 'from'>) =>
      selfId !== undefined && senderIdOf(message) === selfId,
    isFromHost: (message: Pick<MessageRecord, 'from'>) => hostId !== undefined && senderIdOf(message) === hostId,
    senderIdOf,
    // A raw id is named by reverseIdentify in every generation; a locator by reverseLocate.
    senderNames: async (from: string) =>
      febDialect || isFormulaId(from) ? E(powers).reverseIdentify(from) : E(powers).reverseLocate(from),
    followMessages: () => followNormalized(powers, senderIdOf),
    listMessages: async () => {
      const records = await E(powers).listMessages();
      return harden(records.map(record => normalize(record, senderIdOf(record))));
    },
    reply: async (number, strings, edgeNames = [], petNames = []) => {
      // fae's view of its powers (redacted-mail.ts) is called at once (near-call.ts).
      await callNear(view, 'reply', [number, harden([...strings]), harden([...edgeNames]), harden([...petNames])]);
    },
    send: async (recipient, strings, edgeNames = [], petNames = [], replyTo = undefined) => {
      const to = typeof recipient === 'string' ? path(recipient)[0] : harden(path(recipient));
      const args = [
        to,
        harden([...strings]),
        harden([...edgeNames]),
        harden([...petNames]),
      ] as const;
      // February's send has no fifth argument.
      await (replyTo === undefined || febDialect
        ? E(powers).send(...args)
        : E(powers).send(...args, replyTo));
    },
    canEdit: dialect === 'aug',
    edit: async (number, strings, done) => {
      if (dialect !== 'aug') throw Error('this daemon cannot edit a message once sent');
      // The August guest's editMessage: strings, edge names, names, options.
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      await E(powers as any).editMessage(number, harden([...strings]), harden([]), harden([]), harden({ done }));
    },
    reviewsEvaluation: febDialect,
    evaluate: (source, codeNames, petNames) => evaluateOn(powers, febDialect, source, codeNames, petNames),
    path,
    mailPath: (number: bigint, ...rest: string[]) => [names.mail, String(number), ...rest],
  });
};
harden(makeDaemonAdapter);

// src/daemon/: how fae talks to the Endo daemon: the shapes of its objects,
// the far-iterator reader for its mail, and how a message record reads as
// text. Only this folder should know a daemon generation's details. It
// imports providers and the layers below (scripts/check-imports.mjs).
//
// The parts of the daemon's objects that fae calls, as TypeScript sees them
// through E(). Shapes follow ../shared/spec/endo-guest-api.md §4-§5.
import type { ToolSchema } from '../../providers/types.js';

export type NameOrPath = string | readonly string[];

/** A message record as listMessages/followMessages deliver it (§5). */
export interface MessageRecord {
  readonly number: bigint;
  readonly type: string;
  readonly from: string;
  readonly to: string;
  readonly date: string;
  readonly messageId?: string;
  readonly replyTo?: string;
  readonly strings?: readonly string[];
  readonly names?: readonly string[];
  readonly ids?: readonly string[];
  readonly description?: string;
  /** August: false while the sender is still editing the message. */
  readonly done?: boolean;
  readonly [field: string]: unknown;
}

export interface FollowIterator {
  next(): Promise<IteratorResult<MessageRecord>>;
  return(value?: unknown): Promise<IteratorResult<MessageRecord>>;
  throw(error?: unknown): Promise<IteratorResult<MessageRecord>>;
}

/** The EndoGuest powers, as far as fae uses them. */
export interface GuestPowers {
  help(methodName?: string): string;
  has(...path: string[]): boolean;
  identify(...path: string[]): string | undefined;
  reverseIdentify(id: string): readonly string[];
  /** May and August: the names for a locator (reverseIdentify wants raw ids). */
  reverseLocate(locator: string): readonly string[];
  list(...path: string[]): readonly string[];
  lookup(nameOrPath: NameOrPath): unknown;
  remove(...path: string[]): void;
  move(fromPath: readonly string[], toPath: readonly string[]): void;
  copy(fromPath: readonly string[], toPath: readonly string[]): void;
  makeDirectory(nameOrPath: NameOrPath): unknown;
  storeValue(value: unknown, nameOrPath: NameOrPath): void;
  /** The value of a raw formula id (a form answer's valueId); the built-ins' sealed view has none. */
  lookupById?(id: string): unknown;
  listMessages(): readonly MessageRecord[];
  /** A far iterator or a stream reader: read it with makeFollowReader. */
  followMessages(): FollowIterator | object;
  send(
    recipient: NameOrPath,
    strings: readonly string[],
    edgeNames: readonly string[],
    petNames: readonly NameOrPath[],
    /** May and August: the number of the message this answers. */
    replyToNumber?: bigint,
  ): void;
  reply(
    number: bigint,
    strings: readonly string[],
    edgeNames: readonly string[],
    petNames: readonly NameOrPath[],
  ): void;
  adopt(number: bigint, edgeName: string, nameOrPath: NameOrPath): void;
  dismiss(number: bigint): void;
}

/** The daemon's cancellation context for a caplet (§2.3). */
export interface CapletContext {
  id(): string;
  whenCancelled(): Promise<never>;
  whenDisposed(): Promise<void>;
  cancel(reason: Error): Promise<void>;
}

/** A FaeTool capability (src/fae-tool-interface.ts). */
export interface FaeToolMethods {
  schema(): ToolSchema;
  /** `callId` only for a tool that offers cancel (CancellableFaeToolInterface). */
  execute(args: Readonly<Record<string, unknown>>, callId?: string): Promise<unknown>;
  help(): string;
  /** Present on a tool that offers cancellation: stops the call `callId`. */
  cancel?(callId: string): void;
  __getMethodNames__?(): readonly (string | symbol)[];
}

/** What E() accepts for a remote or local object of type T. */
export type Ref<T> = T | PromiseLike<T>;

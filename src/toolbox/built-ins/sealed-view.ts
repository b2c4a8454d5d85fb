// What a turn's view of the guest powers (sealed-powers.ts) sees: the
// principal's own messages, and names resolved and checked against the
// sealed directories, the hidden mail and fae's own names (path-checks.ts).
import { E } from '@endo/far';
import type { GuestPowers, MessageRecord, NameOrPath, Ref } from '../../daemon/endo-types.js';
import type { DaemonAdapter } from '../../daemon/adapter.js';
import { checkPaths, identifyOwnNames, namedPath, noSuchMessage, type CheckedPaths, type HiddenMail, type NamedPath, type OwnIds, type SealedDirectory, type Use } from './path-checks.js';
import type { TurnPrincipal } from './turn-scope.js';

/** The daemon's guest powers, with the methods fae's types do not list yet (every generation has them). */
export interface DaemonGuestPowers extends GuestPowers {
  locate(...path: string[]): string | undefined;
  request(recipient: NameOrPath, description: string, responseName?: NameOrPath): unknown;
  resolve(number: bigint, nameOrPath: NameOrPath): void;
  reject(number: bigint, reason?: string): void;
}

/** The daemon as the view needs it: its special names, and a path's translation to its spelling of them. */
export type ViewDaemon = () => Promise<Pick<DaemonAdapter, 'names' | 'path' | 'evaluate' | 'dialect'>>;

/** The inbox, read at most once for the call that holds it. */
export type Inbox = () => Promise<readonly MessageRecord[]>;

export interface SealedView {
  readonly powers: Ref<DaemonGuestPowers>;
  readonly daemon: ViewDaemon;
  /** Whether the principal may see `message`. */
  readonly sees: (message: MessageRecord) => boolean;
  /** A fresh inbox, read once if at all. */
  readonly inboxOnce: () => Inbox;
  /** Message `number`, if the principal may see it; "no such message" otherwise. */
  readonly ownMessage: (inbox: Inbox, number: bigint) => Promise<MessageRecord>;
  /** The names resolved and checked; `inbox` is read only if a path goes through the mail hub. */
  readonly resolveAll: (uses: readonly (readonly [unknown, Use])[], inbox?: Inbox) => Promise<{ paths: NamedPath[]; found: CheckedPaths }>;
  /** `names` without the sealed directories. */
  readonly withoutSealed: (names: readonly string[]) => string[];
}

export interface SealedViewOptions {
  readonly sealed: readonly SealedDirectory[];
  readonly hidden?: HiddenMail | undefined;
  readonly daemon: ViewDaemon;
  readonly principal: TurnPrincipal;
}

export const makeSealedView = (guestPowers: Ref<GuestPowers>, { sealed, hidden, daemon, principal }: SealedViewOptions): SealedView => {
  // The daemon's guest powers have these methods on every generation.
  const powers = guestPowers as Ref<DaemonGuestPowers>;
  const sealedNames = sealed.map(directory => directory.name);
  const withoutSealed = (names: readonly string[]) => harden(names.filter(name => !sealedNames.includes(name)));

  const sees = (message: MessageRecord) => !(hidden?.hidesMessage(message.number) ?? false) && principal.ownsMessage(message);

  const inboxOnce = (): Inbox => {
    let listed: Promise<readonly MessageRecord[]> | undefined;
    return () => {
      listed ??= Promise.resolve(E(powers).listMessages());
      return listed;
    };
  };

  const ownMessage = async (inbox: Inbox, number: bigint) => {
    const message = (await inbox()).find(m => m.number === number);
    if (message === undefined || !sees(message)) throw noSuchMessage(number);
    return message;
  };

  /** fae's own names never change: asked once per view (a failure is asked again). */
  let ownIdsP: Promise<OwnIds> | undefined;
  const ownIds = () => {
    if (ownIdsP === undefined) {
      const asked = daemon().then(adapter => identifyOwnNames(powers, adapter));
      asked.catch(() => {
        if (ownIdsP === asked) ownIdsP = undefined;
      });
      ownIdsP = asked;
    }
    return ownIdsP;
  };

  const resolveAll = async (uses: readonly (readonly [unknown, Use])[], inbox = inboxOnce()) => {
    const adapter = await daemon();
    const paths = uses.map(([nameOrPath, use]) => namedPath(adapter, nameOrPath, use));
    const visible = async (number: bigint) => {
      const message = (await inbox()).find(m => m.number === number);
      return message !== undefined && sees(message);
    };
    const found = await checkPaths({ powers, sealed, hidden, adapter, visible, ownIds }, paths);
    return { paths, found };
  };

  return harden({ powers, daemon, sees, inboxOnce, ownMessage, resolveAll, withoutSealed });
};
harden(makeSealedView);

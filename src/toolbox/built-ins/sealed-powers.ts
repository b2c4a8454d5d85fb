// The guest powers as a turn's built-ins see them: made for the turn's
// principal (turn-scope.ts), never fae's whole. In this view
//   - the sealed directories and the host's answers to fae's forms do not
//     exist, whatever the spelling (path-checks.ts);
//   - the mail is the principal's alone: listMessages lists it, and a
//     number or a path into the mail hub that reaches anyone else's
//     message is "no such message";
//   - fae's own names (its directory, handles, mail hub, network) are
//     never handed out, and anything else leaves fae only when the
//     principal's mayGive lets it: attached to mail, answering a request,
//     or bound in a directory that is not fae's own.
//
// The view has only the methods below. A built-in added later that needs
// another method finds it missing here, rather than a way around it.
import { E, Far } from '@endo/far';
import { q } from '@endo/errors';
import type { GuestPowers, MessageRecord, NameOrPath, Ref } from '../../daemon/endo-types.js';
import type { DaemonAdapter } from '../../daemon/adapter.js';
import { formulaIdOf } from '../../daemon/dialect.js';
import { callNear } from '../../daemon/near-call.js';
import {
  asNameOrPath,
  checkPaths,
  identifyOwnNames,
  namedPath,
  noSuchMessage,
  segmentsOf,
  type CheckedPaths,
  type HiddenMail,
  type NamedPath,
  type OwnIds,
  type SealedDirectory,
  type Use,
} from './path-checks.js';
import type { Give, GivenItem, Recipient, TurnPrincipal } from './turn-scope.js';

export type { HiddenMail, SealedDirectory } from './path-checks.js';

/** The daemon's guest powers, with the methods fae's types do not list yet (every generation has them). */
interface DaemonGuestPowers extends GuestPowers {
  locate(...path: string[]): string | undefined;
  request(recipient: NameOrPath, description: string, responseName?: NameOrPath): unknown;
  resolve(number: bigint, nameOrPath: NameOrPath): void;
  reject(number: bigint, reason?: string): void;
}

/**
 * The powers the built-ins use: not lookupById (an id reaches anything),
 * not followMessages (a turn reads no one's mail as it comes).
 */
export interface ToolPowers extends Omit<DaemonGuestPowers, 'followMessages' | 'lookupById'> {
  /**
   * Evaluates code with endowments from fae's directory (the daemon
   * adapter's evaluate): given names, so never a sealed one, nor fae's own
   * directory. The host reviews the code and what it receives.
   */
  requestEvaluation(source: string, codeNames: readonly string[], petNames: readonly NameOrPath[]): unknown;
}

export interface SealedPowersOptions {
  readonly sealed: readonly SealedDirectory[];
  readonly hidden?: HiddenMail;
  /** The daemon's special names, and a path's translation to its spelling of them. */
  readonly daemon: () => Promise<Pick<DaemonAdapter, 'names' | 'path' | 'evaluate' | 'dialect'>>;
  /** Whose authority the view acts with. */
  readonly principal: TurnPrincipal;
  /**
   * Told of every name of fae's own directory the view binds, before it
   * does (a rejection stops the bind), and unbinds, after: the names the
   * model wrote, which say nothing of who anyone is (model-names.ts).
   */
  readonly names?: NameNotes;
}

/** Where the names the model binds and unbinds are noted. */
export interface NameNotes {
  readonly willBind: (path: readonly string[]) => Promise<void>;
  readonly unbound: (path: readonly string[]) => Promise<void>;
  /** Whether a name of fae's own was made by the model (false when that cannot be told). */
  readonly madeByModel: (path: readonly string[]) => boolean;
  /**
   * Told, before it is kept, of a capability kept out of the mail (adopt,
   * or a copy out of the mail hub): its id, and who sent it. A rejection
   * stops the keeping.
   */
  readonly keeping?: (id: string, from: string, fromHost: boolean) => Promise<void>;
}

/** The methods of T as E() sees them: each answers with a promise. */
type Eventual<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};

const joined = (path: readonly string[]) => path.join('/');

/** The capabilities the checked paths name, as a give lists them; a name that holds nothing is refused before anyone is asked. */
const itemsOf = (found: CheckedPaths, given: readonly NamedPath[]): GivenItem[] =>
  given.map(({ shown, path }) => {
    const id = found.idOf(path);
    if (id === undefined) throw Error(`nothing is named ${q(joined(shown))}; list shows your names`);
    return harden({ shown: joined(shown), id });
  });

export const makeSealedPowers = (
  guestPowers: Ref<GuestPowers>,
  { sealed, hidden, daemon, principal, names }: SealedPowersOptions,
): ToolPowers => {
  // The daemon's guest powers have these methods on every generation.
  const powers = guestPowers as Ref<DaemonGuestPowers>;
  const sealedNames = sealed.map(directory => directory.name);
  const withoutSealed = (names: readonly string[]) => harden(names.filter(name => !sealedNames.includes(name)));

  /** Whether the principal may see `message`. */
  const sees = (message: MessageRecord) => !(hidden?.hidesMessage(message.number) ?? false) && principal.ownsMessage(message);

  /** The inbox, read once per call that needs it. */
  const inboxOnce = () => {
    let listed: Promise<readonly MessageRecord[]> | undefined;
    return () => {
      listed ??= Promise.resolve(E(powers).listMessages());
      return listed;
    };
  };

  /** Message `number`, if the principal may see it; "no such message" otherwise. */
  const ownMessage = async (inbox: () => Promise<readonly MessageRecord[]>, number: bigint) => {
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

  /** The names resolved and checked; `inbox` is read only if a path goes through the mail hub. */
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

  /**
   * Refuses, outside the host's turns, to change a name the host made (one
   * bound, and not by the model): a correspondent's turn may add names and
   * change the model's own, never the host's (its tools, its names for
   * correspondents).
   */
  const assertMayChange = (found: CheckedPaths, paths: readonly NamedPath[]) => {
    if (principal.isHost || names === undefined) return;
    for (const { shown, path } of paths) {
      const own = found.ownPathOf(path);
      if (own !== undefined && found.idOf(path) !== undefined && !names.madeByModel(own)) {
        throw Error(`${q(joined(shown))} is a name your host made; only your host can change or remove it. Choose another name`);
      }
    }
  };
  /** Notes each name of fae's own that is about to be bound (after assertMayChange). */
  const binding = async (found: CheckedPaths, ...paths: NamedPath[]) => {
    assertMayChange(found, paths);
    const own = paths.map(({ path }) => found.ownPathOf(path)).filter(path => path !== undefined);
    await Promise.all(own.map(path => names?.willBind(path)));
  };
  /** Notes each name of fae's own that was unbound. */
  const unbinding = async (found: CheckedPaths, ...paths: NamedPath[]) => {
    const own = paths.map(({ path }) => found.ownPathOf(path)).filter(path => path !== undefined);
    await Promise.all(own.map(path => names?.unbound(path)));
  };

  /** Notes who sent `message`'s capability (its id, asked only if it is not the host's), before fae keeps it. */
  const keepingFrom = async (found: CheckedPaths, message: MessageRecord, idOf: () => Promise<string | undefined>) => {
    const from = formulaIdOf(message.from) ?? message.from;
    const fromHost = from === found.hostId;
    if (names?.keeping === undefined || fromHost) return;
    const id = await idOf();
    if (id !== undefined) await names.keeping(id, from, fromHost);
  };

  /** Lets the capabilities at `given` go to `to`, if the principal may; nothing to ask when none go. */
  const letGo = async (how: Give['how'], found: CheckedPaths, given: readonly NamedPath[], to: Recipient) => {
    if (given.length === 0) return;
    await principal.mayGive(harden({ how, items: itemsOf(found, given), to }));
  };

  /** Who a reply to (or the answer of) `message` reaches: its sender, or whom fae's own copy went to. */
  const otherParty = (message: MessageRecord, found: CheckedPaths, number: bigint): Recipient => {
    const own = found.selfId !== undefined && (formulaIdOf(message.from) ?? message.from) === found.selfId;
    const raw = own ? message.to : message.from;
    const id = formulaIdOf(raw) ?? raw;
    return harden({ kind: 'party', id, shown: `the ${own ? 'recipient' : 'sender'} of message #${number}`, isHost: id === found.hostId });
  };

  /** copy and move: the capability leaves fae when its new name is in a directory not fae's own. */
  const relocate = (verb: 'copy' | 'move') => async (from: NameOrPath, to: NameOrPath) => {
    const inbox = inboxOnce();
    const { paths: [source, target], found } = await resolveAll([[from, 'give'], [to, 'write']], inbox);
    // Out of the mail hub, it is kept from the message's sender.
    const number = found.messageOf(source.path);
    if (number !== undefined) await keepingFrom(found, await ownMessage(inbox, number), async () => found.idOf(source.path));
    if (!found.staysOwn(target.path)) {
      const parent = target.path.slice(0, -1);
      await letGo(verb, found, [source], harden({ kind: 'directory', id: found.idOf(parent), shown: `${joined(target.shown.slice(0, -1))}/`, isHost: false }));
    }
    if (verb === 'move') assertMayChange(found, [source]);
    await binding(found, target);
    await E(powers)[verb](harden([...source.path]), harden([...target.path]));
    if (verb === 'move') await unbinding(found, source);
  };

  const methods: Eventual<ToolPowers> = {
    help: async (...args) => E(powers).help(...args),
    listMessages: async () => harden((await E(powers).listMessages()).filter(sees)),
    dismiss: async number => {
      await ownMessage(inboxOnce(), number);
      return E(powers).dismiss(number);
    },
    reject: async (number, ...reason) => {
      await ownMessage(inboxOnce(), number);
      return E(powers).reject(number, ...reason);
    },
    reverseIdentify: async id => E(powers).reverseIdentify(id),
    reverseLocate: async locator => E(powers).reverseLocate(locator),
    // Read.
    has: async (...path) => {
      const { paths: [asked] } = await resolveAll([[path, 'read']]);
      return E(powers).has(...asked.path);
    },
    locate: async (...path) => {
      const { paths: [asked] } = await resolveAll([[path, 'read']]);
      return E(powers).locate(...asked.path);
    },
    lookup: async nameOrPath => {
      const { paths: [asked] } = await resolveAll([[nameOrPath, 'read']]);
      return E(powers).lookup(asNameOrPath(asked.path));
    },
    // The check has identified the whole path already.
    identify: async (...path) => {
      const { paths: [asked], found } = await resolveAll([[path, 'read']]);
      return found.identified(asked.path);
    },
    list: async (...path) => {
      // Through fae's view of its powers (redacted-mail.ts), called at once (near-call.ts).
      if (segmentsOf(path).length === 0) return withoutSealed(await callNear(await powers, 'list', []));
      const inbox = inboxOnce();
      const { paths: [asked], found } = await resolveAll([[path, 'read']], inbox);
      const names: string[] = await callNear(await powers, 'list', asked.path);
      if (found.isOwnDirectory(asked.path)) return withoutSealed(names);
      if (!found.isMailHub(asked.path)) return names;
      const mine = new Set((await inbox()).filter(sees).map(message => String(message.number)));
      return harden(names.filter(name => mine.has(name)));
    },
    // Written.
    storeValue: async (value, nameOrPath) => {
      const { paths: [asked], found } = await resolveAll([[nameOrPath, 'write']]);
      await binding(found, asked);
      return E(powers).storeValue(value, asNameOrPath(asked.path));
    },
    makeDirectory: async nameOrPath => {
      const { paths: [asked], found } = await resolveAll([[nameOrPath, 'write']]);
      await binding(found, asked);
      return E(powers).makeDirectory(asNameOrPath(asked.path));
    },
    remove: async (...path) => {
      const { paths: [asked], found } = await resolveAll([[path, 'write']]);
      assertMayChange(found, [asked]);
      await E(powers).remove(...asked.path);
      await unbinding(found, asked);
    },
    adopt: async (number, edgeName, nameOrPath) => {
      const inbox = inboxOnce();
      const [message, { paths: [asked], found }] = await Promise.all([ownMessage(inbox, number), resolveAll([[nameOrPath, 'write']], inbox)]);
      await binding(found, asked);
      await keepingFrom(found, message, async () => {
        const attached = await Promise.resolve(E(powers).identify(...found.mailPathOf(number, edgeName))).catch(() => undefined);
        return typeof attached === 'string' ? (formulaIdOf(attached) ?? attached) : undefined;
      });
      return E(powers).adopt(number, edgeName, asNameOrPath(asked.path));
    },
    // Given, or given and written.
    move: relocate('move'),
    copy: relocate('copy'),
    resolve: async (number, nameOrPath) => {
      const inbox = inboxOnce();
      const [message, { paths: [given], found }] = await Promise.all([ownMessage(inbox, number), resolveAll([[nameOrPath, 'give']], inbox)]);
      await letGo('resolve', found, [given], otherParty(message, found, number));
      return E(powers).resolve(number, asNameOrPath(given.path));
    },
    request: async (recipient, description, ...responseName) => {
      const answer = responseName.filter(name => name !== undefined).map(name => [name, 'write'] as const);
      const { paths: [to, ...kept], found } = await resolveAll([[recipient, 'read'], ...answer]);
      await binding(found, ...kept);
      return E(powers).request(asNameOrPath(to.path), description, ...kept.map(({ path }) => asNameOrPath(path)));
    },
    send: async (recipient, strings, edgeNames, petNames, ...replyTo) => {
      const { paths: [to, ...given], found } = await resolveAll([[recipient, 'read'], ...petNames.map(name => [name, 'give'] as const)]);
      const id = found.idOf(to.path);
      await letGo('send', found, given, harden({ kind: 'party', id, shown: joined(to.shown), isHost: id !== undefined && id === found.hostId }));
      const attached = harden(given.map(({ path }) => asNameOrPath(path)));
      // February's send takes no fifth argument, not even undefined.
      const extra = replyTo.filter(number => number !== undefined);
      return E(powers).send(asNameOrPath(to.path), strings, edgeNames, attached, ...extra);
    },
    // The host reviews the code and what it receives before it runs (approvals.ts).
    requestEvaluation: async (source, codeNames, petNames) => {
      const given = petNames.length === 0 ? [] : (await resolveAll(petNames.map(name => [name, 'give'] as const))).paths;
      return (await daemon()).evaluate(source, codeNames, harden(given.map(({ path }) => asNameOrPath(path))));
    },
    reply: async (number, strings, edgeNames, petNames) => {
      const inbox = inboxOnce();
      if (petNames.length === 0) {
        await ownMessage(inbox, number);
        return E(powers).reply(number, strings, edgeNames, harden([]));
      }
      const [message, { paths: given, found }] = await Promise.all([
        ownMessage(inbox, number),
        resolveAll(petNames.map(name => [name, 'give'] as const), inbox),
      ]);
      await letGo('reply', found, given, otherParty(message, found, number));
      return E(powers).reply(number, strings, edgeNames, harden(given.map(({ path }) => asNameOrPath(path))));
    },
  };
  // E() makes a method that answers with a promise the same as one that
  // answers at once, which is how fae's types describe the daemon's.
  return Far('SealedGuestPowers', methods) as unknown as ToolPowers;
};
harden(makeSealedPowers);

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
import { formulaIdOf } from '../../daemon/dialect.js';
import { callNear } from '../../daemon/near-call.js';
import { asNameOrPath, segmentsOf, type CheckedPaths, type HiddenMail, type NamedPath, type SealedDirectory } from './path-checks.js';
import { joined, makeNameGuard, type NameGuard, type NameNotes } from './name-guard.js';
import { makeSealedView, type DaemonGuestPowers, type SealedView, type ViewDaemon } from './sealed-view.js';
import type { Give, GivenItem, Recipient, TurnPrincipal } from './turn-scope.js';

export type { HiddenMail, SealedDirectory } from './path-checks.js';
export type { NameNotes } from './name-guard.js';

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
  readonly daemon: ViewDaemon;
  /** Whose authority the view acts with. */
  readonly principal: TurnPrincipal;
  /**
   * Told of every name of fae's own directory the view binds, before it
   * does (a rejection stops the bind), and unbinds, after: the names the
   * model wrote, which say nothing of who anyone is (model-names.ts).
   */
  readonly names?: NameNotes;
}

/** The methods of T as E() sees them: each answers with a promise. */
type Eventual<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};
type Methods = Eventual<ToolPowers>;

/** The capabilities the checked paths name, as a give lists them; a name that holds nothing is refused before anyone is asked. */
const itemsOf = (found: CheckedPaths, given: readonly NamedPath[]): GivenItem[] =>
  given.map(({ shown, path }) => {
    const id = found.idOf(path);
    if (id === undefined) throw Error(`nothing is named ${q(joined(shown))}; list shows your names`);
    return harden({ shown: joined(shown), id });
  });

/** Who a reply to (or the answer of) `message` reaches: its sender, or whom fae's own copy went to. */
const otherParty = (message: MessageRecord, found: CheckedPaths, number: bigint): Recipient => {
  const own = found.selfId !== undefined && (formulaIdOf(message.from) ?? message.from) === found.selfId;
  const raw = own ? message.to : message.from;
  const id = formulaIdOf(raw) ?? raw;
  return harden({ kind: 'party', id, shown: `the ${own ? 'recipient' : 'sender'} of message #${number}`, isHost: id === found.hostId });
};

/** Lets the capabilities at `given` go to `to`, if the principal may; nothing to ask when none go. */
const letGo = async (principal: TurnPrincipal, how: Give['how'], found: CheckedPaths, given: readonly NamedPath[], to: Recipient) => {
  if (given.length === 0) return;
  await principal.mayGive(harden({ how, items: itemsOf(found, given), to }));
};

/** The principal's own mail, and what the daemon says of ids and locators. */
const mailMethods = ({ powers, sees, inboxOnce, ownMessage }: SealedView) =>
  ({
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
  }) satisfies Partial<Methods>;

/** Names read: only those the checks let the principal see. */
const readMethods = ({ powers, sees, inboxOnce, resolveAll, withoutSealed }: SealedView) =>
  ({
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
  }) satisfies Partial<Methods>;

/** Names written: bound through the guard, which keeps the host's names the host's. */
const writeMethods = ({ powers, inboxOnce, ownMessage, resolveAll }: SealedView, guard: NameGuard) =>
  ({
    storeValue: async (value, nameOrPath) => {
      const { paths: [asked], found } = await resolveAll([[nameOrPath, 'write']]);
      await guard.binding(found, asked);
      return E(powers).storeValue(value, asNameOrPath(asked.path));
    },
    makeDirectory: async nameOrPath => {
      const { paths: [asked], found } = await resolveAll([[nameOrPath, 'write']]);
      await guard.binding(found, asked);
      return E(powers).makeDirectory(asNameOrPath(asked.path));
    },
    remove: async (...path) => {
      const { paths: [asked], found } = await resolveAll([[path, 'write']]);
      guard.assertMayChange(found, [asked]);
      await E(powers).remove(...asked.path);
      await guard.unbinding(found, asked);
    },
    adopt: async (number, edgeName, nameOrPath) => {
      const inbox = inboxOnce();
      const [message, { paths: [asked], found }] = await Promise.all([ownMessage(inbox, number), resolveAll([[nameOrPath, 'write']], inbox)]);
      await guard.binding(found, asked);
      await guard.keepingFrom(found, message, async () => {
        const attached = await Promise.resolve(E(powers).identify(...found.mailPathOf(number, edgeName))).catch(() => undefined);
        return typeof attached === 'string' ? (formulaIdOf(attached) ?? attached) : undefined;
      });
      return E(powers).adopt(number, edgeName, asNameOrPath(asked.path));
    },
  }) satisfies Partial<Methods>;

/** copy and move: the capability leaves fae when its new name is in a directory not fae's own. */
const relocate =
  ({ powers, inboxOnce, ownMessage, resolveAll }: SealedView, guard: NameGuard, principal: TurnPrincipal, verb: 'copy' | 'move') =>
  async (from: NameOrPath, to: NameOrPath) => {
    const inbox = inboxOnce();
    const { paths: [source, target], found } = await resolveAll([[from, 'give'], [to, 'write']], inbox);
    // Out of the mail hub, it is kept from the message's sender.
    const number = found.messageOf(source.path);
    if (number !== undefined) await guard.keepingFrom(found, await ownMessage(inbox, number), async () => found.idOf(source.path));
    if (!found.staysOwn(target.path)) {
      const parent = target.path.slice(0, -1);
      const to: Recipient = harden({ kind: 'directory', id: found.idOf(parent), shown: `${joined(target.shown.slice(0, -1))}/`, isHost: false });
      await letGo(principal, verb, found, [source], to);
    }
    if (verb === 'move') guard.assertMayChange(found, [source]);
    await guard.binding(found, target);
    await E(powers)[verb](harden([...source.path]), harden([...target.path]));
    if (verb === 'move') await guard.unbinding(found, source);
  };

/** Capabilities given away: each only if the principal's mayGive lets it go to whom it reaches. */
const giveMethods = (view: SealedView, guard: NameGuard, principal: TurnPrincipal) => {
  const { powers, daemon, inboxOnce, ownMessage, resolveAll } = view;
  return {
    move: relocate(view, guard, principal, 'move'),
    copy: relocate(view, guard, principal, 'copy'),
    resolve: async (number, nameOrPath) => {
      const inbox = inboxOnce();
      const [message, { paths: [given], found }] = await Promise.all([ownMessage(inbox, number), resolveAll([[nameOrPath, 'give']], inbox)]);
      await letGo(principal, 'resolve', found, [given], otherParty(message, found, number));
      return E(powers).resolve(number, asNameOrPath(given.path));
    },
    request: async (recipient, description, ...responseName) => {
      const answer = responseName.filter(name => name !== undefined).map(name => [name, 'write'] as const);
      const { paths: [to, ...kept], found } = await resolveAll([[recipient, 'read'], ...answer]);
      await guard.binding(found, ...kept);
      return E(powers).request(asNameOrPath(to.path), description, ...kept.map(({ path }) => asNameOrPath(path)));
    },
    send: async (recipient, strings, edgeNames, petNames, ...replyTo) => {
      const { paths: [to, ...given], found } = await resolveAll([[recipient, 'read'], ...petNames.map(name => [name, 'give'] as const)]);
      const id = found.idOf(to.path);
      await letGo(principal, 'send', found, given, harden({ kind: 'party', id, shown: joined(to.shown), isHost: id !== undefined && id === found.hostId }));
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
      await letGo(principal, 'reply', found, given, otherParty(message, found, number));
      return E(powers).reply(number, strings, edgeNames, harden(given.map(({ path }) => asNameOrPath(path))));
    },
  } satisfies Partial<Methods>;
};

export const makeSealedPowers = (guestPowers: Ref<GuestPowers>, { sealed, hidden, daemon, principal, names }: SealedPowersOptions): ToolPowers => {
  const view = makeSealedView(guestPowers, { sealed, hidden, daemon, principal });
  const guard = makeNameGuard(principal, names);
  const methods: Methods = {
    ...mailMethods(view),
    ...readMethods(view),
    ...writeMethods(view, guard),
    ...giveMethods(view, guard, principal),
  };
  // E() makes a method that answers with a promise the same as one that
  // answers at once, which is how fae's types describe the daemon's.
  return Far('SealedGuestPowers', methods) as unknown as ToolPowers;
};
harden(makeSealedPowers);

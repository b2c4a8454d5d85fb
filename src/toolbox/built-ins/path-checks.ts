// How the built-ins' view of fae's powers (sealed-powers.ts) judges the
// names and paths a call takes, by what they land in rather than how they
// are spelt: every prefix of every path is identified (all at once, with
// the names the judgement needs, one round trip) and compared by id.
//
//   - A sealed directory (fae's conversations, its settings, …) does not
//     exist: "/conversations", "@agent/conversations" or a second name
//     made for it are refused alike. So are the host's answers to fae's
//     forms (hidden, by id).
//   - The mail hub holds only the turn's own messages: a path through it
//     to a message the turn may not see is "no such message", the same
//     as one that does not exist.
//   - What is fae's own is never handed out (a `give`): its directory,
//     its handle, its host's handle, its mail hub, its network access,
//     nor anything reached through the handles or the network.
//   - fae's own directory is never replaced or removed.
import { E } from '@endo/far';
import { q } from '@endo/errors';
import type { NameOrPath, Ref, GuestPowers } from '../../daemon/endo-types.js';
import type { DaemonAdapter } from '../../daemon/adapter.js';
import { formulaIdOf } from '../../daemon/dialect.js';
import { TOOLS_DIRECTORY } from '../discovered-tools.js';
import { rejectionText } from './rejection-text.js';

/** A top-level name of fae's directory that no tool may reach. */
export interface SealedDirectory {
  readonly name: string;
  /** What it is, for the refusal: "fae's private memory of its conversations". */
  readonly holds: string;
}

/**
 * Mail no tool may see: the host's answers to fae's forms, which may
 * carry a token, and fae's own copies of its approval requests. Their
 * messages are no turn's; their values cannot be reached by any path (the
 * mail hub's `@mail/N/@value` included), as they are judged by id.
 */
export interface HiddenMail {
  hidesMessage(number: bigint): boolean;
  hidesId(id: string): boolean;
}

/**
 * What a name is used for: read (look, list, identify), given (attached,
 * copied or moved from, a request's answer) or written (stored, replaced,
 * removed).
 */
export type Use = 'read' | 'give' | 'write';

export interface NamedPath {
  /** As the tool wrote it, for errors. */
  readonly shown: readonly string[];
  /** With a special name in the daemon's spelling. */
  readonly path: readonly string[];
  readonly use: Use;
}

/** What the checks ask of the daemon adapter. */
export type CheckingAdapter = Pick<DaemonAdapter, 'names' | 'path' | 'dialect'>;

export interface PathCheckContext {
  readonly powers: Ref<GuestPowers>;
  readonly sealed: readonly SealedDirectory[];
  readonly hidden?: HiddenMail;
  readonly adapter: CheckingAdapter;
  /** Whether the turn may see message `number` (its own, and not hidden). */
  readonly visible: (number: bigint) => Promise<boolean>;
  /** The ids of fae's own names (identifyOwnNames), asked once by the view. */
  readonly ownIds: () => Promise<OwnIds>;
}

const keyOf = (path: readonly string[]) => JSON.stringify(path);
const prefixesOf = (path: readonly string[]) => path.map((_, i) => path.slice(0, i + 1));

/**
 * A name or path as the names between its slashes, wherever they were
 * written (in a string or in an array's items), without empty names or ".":
 * "//a/./b/", ["a", "b"] and ["/a", "b/"] are all a/b.
 */
export const segmentsOf = (nameOrPath: unknown): string[] => {
  const parts: unknown[] = Array.isArray(nameOrPath) ? nameOrPath : [nameOrPath];
  if (!parts.every((part): part is string => typeof part === 'string')) {
    throw Error(`${q(nameOrPath)} is not a name or path; give a pet name such as "notes" or a path such as "tools/greet"`);
  }
  return parts.flatMap(part => part.split('/')).filter(name => name !== '' && name !== '.');
};
harden(segmentsOf);

/** A name as the daemon is asked for it: one name as a string, a longer path as an array. */
export const asNameOrPath = (path: readonly string[]): NameOrPath => (path.length === 1 ? path[0] : harden([...path]));
harden(asNameOrPath);

/** The path as the tool wrote it and in the daemon's spelling. */
export const namedPath = (adapter: Pick<DaemonAdapter, 'path'>, nameOrPath: unknown, use: Use): NamedPath => {
  const shown = segmentsOf(nameOrPath);
  if (shown.length === 0) {
    throw Error(`${q(nameOrPath)} names nothing; give a pet name such as "notes" or a path such as "tools/greet"`);
  }
  return harden({ shown, path: adapter.path(shown), use });
};
harden(namedPath);

/** "message #4" is no message of this turn: the same words as for one that does not exist. */
export const noSuchMessage = (number: bigint | string) =>
  Error(`there is no message #${number} in your inbox; listMessages shows the messages you can act on`);
harden(noSuchMessage);

/** fae's own names, by role, and what each is, for a refusal. */
const ownRoles = (names: CheckingAdapter['names'], dialect: CheckingAdapter['dialect']) =>
  [
    { role: 'agent', path: [names.agent], what: "fae's own directory" },
    { role: 'self', path: [names.self], what: "fae's own handle (its identity in mail)" },
    { role: 'host', path: [names.host], what: "the handle of fae's host" },
    { role: 'mail', path: [names.mail], what: "fae's mail (every correspondent's messages)" },
    // The newer daemons give a guest its network access under @nets.
    ...(dialect === 'feb' ? [] : [{ role: 'nets', path: ['@nets'], what: "fae's network access" }]),
  ] as const;

/** fae's tools/ directory as a whole: whoever held it could change what fae offers its model. */
const TOOLS_ROLE = { role: 'tools', what: "fae's tools directory (what it offers its model)" } as const;
type OwnRole = ReturnType<typeof ownRoles>[number];

/** The ids of fae's own names, by role: they never change, so a view asks once. */
export type OwnIds = ReadonlyMap<OwnRole['role'], string | undefined>;

/**
 * Identifies fae's own names, all at once. Rejects when one cannot be
 * identified: without them nothing can be judged.
 */
export const identifyOwnNames = async (powers: Ref<GuestPowers>, adapter: CheckingAdapter): Promise<OwnIds> => {
  const roles = ownRoles(adapter.names, adapter.dialect);
  const ids = await Promise.all(
    roles.map(({ path }) =>
      Promise.resolve(E(powers).identify(...path)).then(
        id => (typeof id === 'string' ? (formulaIdOf(id) ?? id) : undefined),
        error => {
          throw Error(`cannot check names: identify ${q(path.join('/'))} failed (${rejectionText(error)}); try again`);
        },
      ),
    ),
  );
  return new Map(roles.map(({ role }, i) => [role, ids[i]]));
};
harden(identifyOwnNames);

type Identified = ReadonlyMap<string, PromiseSettledResult<unknown>>;

/**
 * Identifies every prefix of every path and what the judgement needs, all
 * at once; refuses when a sealed directory cannot be identified (without
 * its id nothing can be judged: refuse rather than guess).
 */
const identifyAll = async ({ powers, sealed, ownIds }: PathCheckContext, paths: readonly NamedPath[]) => {
  const judges = sealed.map(directory => [directory.name]);
  const wanted = new Map<string, readonly string[]>();
  // tools/ is identified too where a name is written deeper than the top,
  // so that a copy into it is known as one into fae's own.
  const deep = paths.some(({ path, use }) => use === 'give' || (use === 'write' && path.length > 1));
  for (const path of [...paths.flatMap(({ path }) => prefixesOf(path)), ...judges, ...(deep ? [[TOOLS_DIRECTORY]] : [])]) {
    wanted.set(keyOf(path), path);
  }
  const keys = [...wanted.keys()];
  const [roleIds, outcomes] = await Promise.all([ownIds(), Promise.allSettled(keys.map(key => E(powers).identify(...wanted.get(key)!)))]);
  const found: Identified = new Map(keys.map((key, i) => [key, outcomes[i]]));
  for (const path of judges) {
    const outcome = found.get(keyOf(path));
    if (outcome?.status === 'rejected') {
      const whatIsSealed = sealed.map(directory => directory.holds).join(' and ');
      throw Error(`cannot check names against ${whatIsSealed}: identify ${q(path.join('/'))} failed (${rejectionText(outcome.reason)}); try again`);
    }
  }
  return { found, roleIds };
};

/** What the identified ids say of a path's parts: whose they are, sealed, the mail hub. */
const readingOf = ({ sealed, adapter }: PathCheckContext, found: Identified, roleIds: OwnIds) => {
  const roles = ownRoles(adapter.names, adapter.dialect);
  const idAt = (path: readonly string[]) => {
    const outcome = found.get(keyOf(path));
    return outcome?.status === 'fulfilled' && typeof outcome.value === 'string' ? (formulaIdOf(outcome.value) ?? outcome.value) : undefined;
  };
  const ownIdOf = (role: OwnRole['role']) => roleIds.get(role);
  const roleOf = (id: string | undefined) => (id === undefined ? undefined : roles.find(({ role }) => ownIdOf(role) === id));
  const agentId = ownIdOf('agent');
  const mailId = ownIdOf('mail');
  // A sealed directory is reached by its id anywhere, and by its name at
  // fae's top level or beneath fae's agent or handle (so also before the
  // store exists, and "@self/conversations" means fae's own).
  const beneathOwn = (path: readonly string[], i: number) => {
    const parent = i === 0 ? undefined : idAt(path.slice(0, i));
    return i === 0 || (parent !== undefined && (parent === agentId || parent === ownIdOf('self')));
  };
  const sealedAt = (path: readonly string[], i: number) => {
    const id = idAt(path.slice(0, i + 1));
    return sealed.find(
      directory => (id !== undefined && id === idAt([directory.name])) || (beneathOwn(path, i) && path[i] === directory.name),
    );
  };
  const isMailHubAt = (path: readonly string[], i: number) =>
    (mailId !== undefined && idAt(path.slice(0, i + 1)) === mailId) || (i === 0 && path[0] === adapter.names.mail);
  return { roles, idAt, ownIdOf, roleOf, agentId, sealedAt, isMailHubAt, toolsId: idAt([TOOLS_DIRECTORY]) };
};
type Reading = ReturnType<typeof readingOf>;

/**
 * Refuses a path through a sealed directory, and one that gives away or
 * replaces a name of fae's own; lists the messages the paths reach through
 * the mail hub, with what shows them.
 */
const refuseOwnAndSealed = (paths: readonly NamedPath[], { roles, idAt, roleOf, sealedAt, isMailHubAt, toolsId }: Reading) => {
  const throughMail: { readonly number: string; readonly shown: string }[] = [];
  for (const { shown, path, use } of paths) {
    for (let i = 0; i < path.length; i += 1) {
      const reached = sealedAt(path, i);
      if (reached !== undefined) {
        throw Error(`${q(shown.slice(0, i + 1).join('/'))} is ${reached.holds}; no tool may read or change it`);
      }
      if (isMailHubAt(path, i) && i + 1 < path.length) throughMail.push({ number: path[i + 1], shown: shown.slice(0, i + 2).join('/') });
    }
    const whole =
      roleOf(idAt(path)) ??
      (isMailHubAt(path, path.length - 1) ? roles.find(({ role }) => role === 'mail') : undefined) ??
      (use === 'give' && toolsId !== undefined && idAt(path) === toolsId ? TOOLS_ROLE : undefined);
    if (use !== 'read' && whole !== undefined && whole.role !== 'self' && whole.role !== 'host') {
      const verb = use === 'give' ? 'is never handed out' : 'cannot be replaced or removed';
      throw Error(`${q(shown.join('/'))} is ${whole.what}; it ${verb}`);
    }
    if (use === 'give') {
      // Through a handle or the network, as a whole: nothing of it leaves.
      const through = prefixesOf(path).map(prefix => roleOf(idAt(prefix))).find(role => role !== undefined && role.role !== 'agent' && role.role !== 'mail');
      if (through !== undefined) throw Error(`${q(shown.join('/'))} is, or is reached through, ${through.what}; it is never handed out`);
    }
  }
  return throughMail;
};

/**
 * Refuses a message reached through the mail hub that is not the turn's
 * own, the host's answer to a form however it was named (a copy, say), and
 * a prefix the daemon could not identify (it cannot reach it either: its
 * own words say why).
 */
const refuseUnreachable = async (
  { hidden, visible }: PathCheckContext,
  paths: readonly NamedPath[],
  found: Identified,
  { idAt }: Reading,
  throughMail: readonly { readonly number: string }[],
) => {
  const seen = await Promise.all(throughMail.map(({ number }) => (/^\d+$/.test(number) ? visible(BigInt(number)) : false)));
  const unseen = throughMail.find((_, i) => !seen[i]);
  if (unseen !== undefined) throw noSuchMessage(unseen.number);
  for (const { shown, path } of paths) {
    const at = prefixesOf(path).findIndex(prefix => {
      const id = idAt(prefix);
      return id !== undefined && hidden?.hidesId(id);
    });
    if (at >= 0) throw Error(`${q(shown.slice(0, at + 1).join('/'))} is the host's answer to fae's own form; no tool may read it`);
  }
  for (const { path } of paths) {
    const failed = prefixesOf(path).map(prefix => found.get(keyOf(prefix))).find(outcome => outcome?.status === 'rejected');
    if (failed?.status === 'rejected') throw failed.reason;
  }
};

/** What the checks found, for the view's methods. */
const checkedOf = (adapter: CheckingAdapter, found: Identified, { idAt, ownIdOf, roleOf, agentId, isMailHubAt, toolsId }: Reading) =>
  harden({
    /** The raw answer of identify for a checked path. */
    identified: (path: readonly string[]) => {
      const outcome = found.get(keyOf(path));
      return outcome?.status === 'fulfilled' ? (outcome.value as string | undefined) : undefined;
    },
    /** The formula id of a checked path, whatever the daemon's syntax. */
    idOf: idAt,
    /** Whether a checked path is fae's own directory (which lists the sealed names). */
    isOwnDirectory: (path: readonly string[]) => agentId !== undefined && idAt(path) === agentId,
    /**
     * The path as a name in fae's own directory ("tools/greet" for
     * "@agent/tools/greet"); undefined for one in someone else's directory.
     */
    ownPathOf: (path: readonly string[]) => {
      let start = 0;
      for (let i = 0; i < path.length - 1; i += 1) {
        const id = idAt(path.slice(0, i + 1));
        if (id !== undefined && id === agentId) start = i + 1;
      }
      const own = path.slice(start);
      // A path into another party's directory (mailed, or a message's) is not a name of fae's.
      const foreign = own.slice(0, -1).some((_, i) => {
        const id = idAt(path.slice(0, start + i + 1));
        return id === undefined || roleOf(id) !== undefined || isMailHubAt(path, start + i);
      });
      return foreign ? undefined : harden(own);
    },
    /** The number of the message a checked path reaches through the mail hub, if it does. */
    messageOf: (path: readonly string[]) => {
      const at = path.findIndex((_, i) => isMailHubAt(path, i));
      const number = at < 0 ? undefined : path[at + 1];
      return number !== undefined && /^\d+$/.test(number) ? BigInt(number) : undefined;
    },
    /** The path of message `number`'s attachment `edge` in the mail hub, in the daemon's spelling. */
    mailPathOf: (number: bigint, edge: string) => [adapter.names.mail, String(number), edge],
    /** Whether a checked path is the mail hub itself. */
    isMailHub: (path: readonly string[]) => path.length > 0 && isMailHubAt(path, path.length - 1),
    /**
     * Whether a name bound at `path` stays with fae: its parent is fae's
     * own directory or its tools/ (any other directory may be read by
     * whoever gave it to fae).
     */
    staysOwn: (path: readonly string[]) => {
      const parent = path.slice(0, -1);
      if (parent.length === 0) return true;
      const id = idAt(parent);
      return id !== undefined && (id === agentId || id === toolsId);
    },
    /** The host's handle's id, and fae's own, if the daemon said. */
    hostId: ownIdOf('host'),
    selfId: ownIdOf('self'),
  });

/**
 * Identifies every prefix of every path and what the judgement needs, all
 * at once; throws if a path is refused. Resolves to what it found.
 */
export const checkPaths = async (context: PathCheckContext, paths: readonly NamedPath[]) => {
  const { found, roleIds } = await identifyAll(context, paths);
  const reading = readingOf(context, found, roleIds);
  const throughMail = refuseOwnAndSealed(paths, reading);
  await refuseUnreachable(context, paths, found, reading, throughMail);
  return checkedOf(context.adapter, found, reading);
};
harden(checkPaths);
export type CheckedPaths = Awaited<ReturnType<typeof checkPaths>>;

// The guest powers as fae's built-in tools see them: an attenuated view in
// which the sealed directories (fae's stored conversations; the caller
// says which) do not exist. Every name or path a method takes is resolved
// to what it lands in, by identity rather than spelling, before the daemon
// is asked to act on it: each prefix of the path is identified (all at
// once, with the sealed directories and fae's own names, one round trip)
// and compared with the sealed directories' ids. So "/conversations",
// "@agent/conversations", ["conversations"] or a second name made for the
// store by copy all land in the store and are refused alike. Handing out
// or replacing fae's own directory, which holds the sealed ones, is refused
// too.
//
// The view has only the methods below. Those that take names check every
// one of them; those that take none (listMessages, dismiss, help, …) are
// forwarded unchanged. A built-in added later that needs another
// name-taking method finds it missing here, rather than a way around the
// seal.
import { E, Far } from '@endo/far';
import { q } from '@endo/errors';
import type { GuestPowers, NameOrPath, Ref } from '../../daemon/endo-types.js';
import type { DaemonAdapter } from '../../daemon/adapter.js';
import { formulaIdOf } from '../../daemon/dialect.js';
import { callNear } from '../../daemon/near-call.js';
import { rejectionText } from './rejection-text.js';

/** A top-level name of fae's directory that no tool may reach. */
export interface SealedDirectory {
  readonly name: string;
  /** What it is, for the refusal: "fae's private memory of its conversations". */
  readonly holds: string;
}

/** The guest powers the built-ins use (not lookupById: an id reaches anything), with methods fae's types do not list yet. */
export interface ToolPowers extends GuestPowers {
  locate(...path: string[]): string | undefined;
  request(recipient: NameOrPath, description: string, responseName?: NameOrPath): unknown;
  resolve(number: bigint, nameOrPath: NameOrPath): void;
  reject(number: bigint, reason?: string): void;
  /**
   * Evaluates code with endowments from fae's directory (the daemon
   * adapter's evaluate): given names, so never a sealed one, nor fae's own
   * directory.
   */
  requestEvaluation(source: string, codeNames: readonly string[], petNames: readonly NameOrPath[]): unknown;
}

/**
 * Mail no tool may see: the host's answers to fae's forms, which may
 * carry a token, and fae's own copies of its approval requests. Their
 * messages are left out of listMessages and cannot be adopted or
 * dismissed; their values cannot be reached by any path (the mail hub's
 * `@mail/N/@value` included), as they are judged by id.
 */
export interface HiddenMail {
  hidesMessage(number: bigint): boolean;
  hidesId(id: string): boolean;
}

export interface SealedPowersOptions {
  readonly sealed: readonly SealedDirectory[];
  readonly hidden?: HiddenMail;
  /** The daemon's special names, and a path's translation to its spelling of them. */
  readonly daemon: () => Promise<Pick<DaemonAdapter, 'names' | 'path' | 'evaluate'>>;
}

/**
 * What a name is used for: read (look, list, identify), given (attached,
 * copied or moved from, a request's answer) or written (stored, replaced,
 * removed). Fae's own directory may be read, never given or written.
 */
type Use = 'read' | 'give' | 'write';

interface NamedPath {
  /** As the tool wrote it, for errors. */
  readonly shown: readonly string[];
  /** With a special name in the daemon's spelling. */
  readonly path: readonly string[];
  readonly use: Use;
}

/** The methods of T as E() sees them: each answers with a promise. */
type Eventual<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};

const keyOf = (path: readonly string[]) => JSON.stringify(path);
const prefixesOf = (path: readonly string[]) => path.map((_, i) => path.slice(0, i + 1));
/** One name as a string (as the daemon is usually asked), a longer path as an array. */
const asNameOrPath = (path: readonly string[]): NameOrPath => (path.length === 1 ? path[0] : harden([...path]));

/**
 * A name or path as the names between its slashes, wherever they were
 * written (in a string or in an array's items), without empty names or ".":
 * "//a/./b/", ["a", "b"] and ["/a", "b/"] are all a/b.
 */
const segmentsOf = (nameOrPath: unknown): string[] => {
  const parts: unknown[] = Array.isArray(nameOrPath) ? nameOrPath : [nameOrPath];
  if (!parts.every((part): part is string => typeof part === 'string')) {
    throw Error(`${q(nameOrPath)} is not a name or path; give a pet name such as "notes" or a path such as "tools/greet"`);
  }
  return parts.flatMap(part => part.split('/')).filter(name => name !== '' && name !== '.');
};

/**
 * Identifies every prefix of every path, the sealed directories and
 * fae's own names (its agent, which holds its directory, and its handle),
 * all at once; throws if a path reaches a sealed directory, or gives or
 * writes fae's own directory. Resolves to what it found.
 */
const checkPaths = async (
  powers: Ref<ToolPowers>,
  { sealed, hidden }: Pick<SealedPowersOptions, 'sealed' | 'hidden'>,
  adapter: Pick<DaemonAdapter, 'names'>,
  paths: readonly NamedPath[],
) => {
  const sealedNames = sealed.map(directory => directory.name);
  const whatIsSealed = sealed.map(directory => directory.holds).join(' and ');
  const agent = [adapter.names.agent];
  const self = [adapter.names.self];
  const judges = [...sealedNames.map(name => [name]), agent, self];
  const wanted = new Map<string, readonly string[]>();
  for (const path of [...paths.flatMap(({ path }) => prefixesOf(path)), ...judges]) {
    wanted.set(keyOf(path), path);
  }
  const keys = [...wanted.keys()];
  const outcomes = await Promise.allSettled(keys.map(key => E(powers).identify(...wanted.get(key)!)));
  const found = new Map(keys.map((key, i) => [key, outcomes[i]]));
  const idAt = (path: readonly string[]) => {
    const outcome = found.get(keyOf(path));
    return outcome?.status === 'fulfilled' && typeof outcome.value === 'string'
      ? (formulaIdOf(outcome.value) ?? outcome.value)
      : undefined;
  };
  // Without these ids nothing can be judged: refuse rather than guess.
  for (const path of judges) {
    const outcome = found.get(keyOf(path));
    if (outcome?.status === 'rejected') {
      throw Error(
        `cannot check names against ${whatIsSealed}: identify ${q(path.join('/'))} failed (${rejectionText(outcome.reason)}); try again`,
      );
    }
  }
  const holderId = idAt(agent);
  // A sealed directory is reached by its id anywhere, and by its name at
  // fae's top level or beneath fae's agent or handle (so also before the
  // store exists, and "@self/conversations" means fae's own).
  const ownIds = new Set([holderId, idAt(self)]);
  ownIds.delete(undefined);
  const reachedAt = (path: readonly string[], i: number) => {
    const id = idAt(path.slice(0, i + 1));
    const beneathOwn = i === 0 || ownIds.has(idAt(path.slice(0, i)));
    return sealed.find(
      directory => (id !== undefined && id === idAt([directory.name])) || (beneathOwn && path[i] === directory.name),
    );
  };
  for (const { shown, path, use } of paths) {
    for (let i = 0; i < path.length; i += 1) {
      const reached = reachedAt(path, i);
      if (reached !== undefined) {
        throw Error(`${q(shown.slice(0, i + 1).join('/'))} is ${reached.holds}; no tool may read or change it`);
      }
      const id = idAt(path.slice(0, i + 1));
      if (id !== undefined && hidden?.hidesId(id)) {
        throw Error(`${q(shown.slice(0, i + 1).join('/'))} is the host's answer to fae's own form; no tool may read it`);
      }
    }
    if (use !== 'read' && holderId !== undefined && idAt(path) === holderId) {
      const verb = use === 'give' ? 'hand it out' : 'replace it';
      throw Error(`${q(shown.join('/'))} is fae's own directory, which holds ${whatIsSealed}; no tool may ${verb}`);
    }
  }
  // A prefix the daemon could not identify is one it cannot reach either:
  // its own words say why.
  for (const { path } of paths) {
    const failed = prefixesOf(path).map(prefix => found.get(keyOf(prefix))).find(outcome => outcome?.status === 'rejected');
    if (failed?.status === 'rejected') throw failed.reason;
  }
  return harden({
    /** The raw answer of identify for a checked path. */
    identified: (path: readonly string[]) => {
      const outcome = found.get(keyOf(path));
      return outcome?.status === 'fulfilled' ? (outcome.value as string | undefined) : undefined;
    },
    /** Whether a checked path is fae's own directory (which lists the sealed names). */
    isOwnDirectory: (path: readonly string[]) => holderId !== undefined && idAt(path) === holderId,
  });
};


export const makeSealedPowers = (
  guestPowers: Ref<GuestPowers>,
  { sealed, hidden, daemon }: SealedPowersOptions,
): ToolPowers => {
  // The daemon's guest powers have these methods on every generation.
  const powers = guestPowers as Ref<ToolPowers>;
  const sealedNames = sealed.map(directory => directory.name);
  const withoutSealed = (names: readonly string[]) => harden(names.filter(name => !sealedNames.includes(name)));

  const named = (adapter: Pick<DaemonAdapter, 'path'>, nameOrPath: unknown, use: Use): NamedPath => {
    const shown = segmentsOf(nameOrPath);
    if (shown.length === 0) {
      throw Error(`${q(nameOrPath)} names nothing; give a pet name such as "notes" or a path such as "tools/greet"`);
    }
    return harden({ shown, path: adapter.path(shown), use });
  };

  /** The names resolved and checked (when anything is sealed). */
  const resolveAll = async (uses: readonly (readonly [unknown, Use])[]) => {
    const adapter = await daemon();
    const paths = uses.map(([nameOrPath, use]) => named(adapter, nameOrPath, use));
    const judged = sealed.length > 0 || hidden !== undefined;
    const found = judged && paths.length > 0 ? await checkPaths(powers, { sealed, hidden }, adapter, paths) : undefined;
    return { paths, found };
  };

  /** Checks the names, then hands their daemon spelling to `act`. */
  const guarded = async <T>(uses: readonly (readonly [unknown, Use])[], act: (...paths: NamedPath[]) => Promise<T>) =>
    act(...(await resolveAll(uses)).paths);

  const methods: Eventual<ToolPowers> = {
    // Nothing named: forwarded unchanged.
    help: async (...args) => E(powers).help(...args),
    listMessages: async () => {
      const messages = await E(powers).listMessages();
      return hidden === undefined ? messages : harden(messages.filter(message => !hidden.hidesMessage(message.number)));
    },
    followMessages: async () => E(powers).followMessages(),
    dismiss: async number => {
      if (hidden?.hidesMessage(number)) throw Error(`message #${number} is fae's own business with its host; no tool may dismiss it`);
      return E(powers).dismiss(number);
    },
    reject: async (...args) => E(powers).reject(...args),
    reverseIdentify: async id => E(powers).reverseIdentify(id),
    reverseLocate: async locator => E(powers).reverseLocate(locator),
    // Read.
    has: async (...path) => guarded([[path, 'read']], async ({ path: p }) => E(powers).has(...p)),
    locate: async (...path) => guarded([[path, 'read']], async ({ path: p }) => E(powers).locate(...p)),
    lookup: async nameOrPath => guarded([[nameOrPath, 'read']], async ({ path }) => E(powers).lookup(asNameOrPath(path))),
    identify: async (...path) => {
      const { paths: [asked], found } = await resolveAll([[path, 'read']]);
      // The check has identified the whole path already.
      return found === undefined ? E(powers).identify(...asked.path) : found.identified(asked.path);
    },
    list: async (...path) => {
      // Through fae's view of its powers (redacted-mail.ts), called at once (near-call.ts).
      if (segmentsOf(path).length === 0) return withoutSealed(await callNear(await powers, 'list', []));
      const { paths: [asked], found } = await resolveAll([[path, 'read']]);
      const names: string[] = await callNear(await powers, 'list', asked.path);
      return found?.isOwnDirectory(asked.path) ? withoutSealed(names) : names;
    },
    // Written.
    storeValue: async (value, nameOrPath) =>
      guarded([[nameOrPath, 'write']], async ({ path }) => E(powers).storeValue(value, asNameOrPath(path))),
    makeDirectory: async nameOrPath =>
      guarded([[nameOrPath, 'write']], async ({ path }) => E(powers).makeDirectory(asNameOrPath(path))),
    remove: async (...path) => guarded([[path, 'write']], async ({ path: p }) => E(powers).remove(...p)),
    adopt: async (number, edgeName, nameOrPath) => {
      if (hidden?.hidesMessage(number)) throw Error(`message #${number} is the host's answer to fae's own form; no tool may adopt from it`);
      return guarded([[nameOrPath, 'write']], async ({ path }) => E(powers).adopt(number, edgeName, asNameOrPath(path)));
    },
    // Given, or given and written.
    move: async (from, to) =>
      guarded([[from, 'give'], [to, 'write']], async (a, b) => E(powers).move(harden([...a.path]), harden([...b.path]))),
    copy: async (from, to) =>
      guarded([[from, 'give'], [to, 'write']], async (a, b) => E(powers).copy(harden([...a.path]), harden([...b.path]))),
    resolve: async (number, nameOrPath) =>
      guarded([[nameOrPath, 'give']], async ({ path }) => E(powers).resolve(number, asNameOrPath(path))),
    request: async (recipient, description, ...responseName) =>
      guarded(
        [[recipient, 'read'], ...responseName.filter(name => name !== undefined).map(name => [name, 'write'] as const)],
        async (to, ...answer) =>
          E(powers).request(asNameOrPath(to.path), description, ...answer.map(({ path }) => asNameOrPath(path))),
      ),
    send: async (recipient, strings, edgeNames, petNames, ...replyTo) =>
      guarded(
        [[recipient, 'read'], ...petNames.map(name => [name, 'give'] as const)],
        async (to, ...given) => {
          const attached = harden(given.map(({ path }) => asNameOrPath(path)));
          // February's send takes no fifth argument, not even undefined.
          const extra = replyTo.filter(number => number !== undefined);
          return E(powers).send(asNameOrPath(to.path), strings, edgeNames, attached, ...extra);
        },
      ),
    requestEvaluation: async (source, codeNames, petNames) =>
      guarded(
        petNames.map(name => [name, 'give'] as const),
        async (...given) => (await daemon()).evaluate(source, codeNames, harden(given.map(({ path }) => asNameOrPath(path)))),
      ),
    reply: async (number, strings, edgeNames, petNames) =>
      guarded(
        petNames.map(name => [name, 'give'] as const),
        async (...given) => E(powers).reply(number, strings, edgeNames, harden(given.map(({ path }) => asNameOrPath(path)))),
      ),
  };
  // E() makes a method that answers with a promise the same as one that
  // answers at once, which is how fae's types describe the daemon's.
  return Far('SealedGuestPowers', methods) as unknown as ToolPowers;
};
harden(makeSealedPowers);

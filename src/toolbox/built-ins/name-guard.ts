// What a turn may do to fae's own names (sealed-powers.ts): outside the
// host's turns, change only names the model made; note every name bound or
// unbound (model-names.ts); and note who sent a capability fae keeps out of
// the mail.
import { q } from '@endo/errors';
import type { MessageRecord } from '../../daemon/endo-types.js';
import { formulaIdOf } from '../../daemon/dialect.js';
import type { CheckedPaths, NamedPath } from './path-checks.js';
import type { TurnPrincipal } from './turn-scope.js';

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

export interface NameGuard {
  /** Refuses to change a name the host made, outside the host's turns. */
  readonly assertMayChange: (found: CheckedPaths, paths: readonly NamedPath[]) => void;
  /** Checks, then notes, each name of fae's own that is about to be bound. */
  readonly binding: (found: CheckedPaths, ...paths: NamedPath[]) => Promise<void>;
  /** Notes each name of fae's own that was unbound. */
  readonly unbinding: (found: CheckedPaths, ...paths: NamedPath[]) => Promise<void>;
  /** Notes who sent `message`'s capability (its id, asked only if it is not the host's), before fae keeps it. */
  readonly keepingFrom: (found: CheckedPaths, message: MessageRecord, idOf: () => Promise<string | undefined>) => Promise<void>;
}

export const joined = (path: readonly string[]) => path.join('/');

export const makeNameGuard = (principal: TurnPrincipal, names: NameNotes | undefined): NameGuard => {
  // A correspondent's turn may add names and change the model's own, never
  // the host's (its tools, its names for correspondents).
  const assertMayChange = (found: CheckedPaths, paths: readonly NamedPath[]) => {
    if (principal.isHost || names === undefined) return;
    for (const { shown, path } of paths) {
      const own = found.ownPathOf(path);
      if (own !== undefined && found.idOf(path) !== undefined && !names.madeByModel(own)) {
        throw Error(`${q(joined(shown))} is a name your host made; only your host can change or remove it. Choose another name`);
      }
    }
  };
  const ownPaths = (found: CheckedPaths, paths: readonly NamedPath[]) =>
    paths.map(({ path }) => found.ownPathOf(path)).filter(path => path !== undefined);
  const binding = async (found: CheckedPaths, ...paths: NamedPath[]) => {
    assertMayChange(found, paths);
    await Promise.all(ownPaths(found, paths).map(path => names?.willBind(path)));
  };
  const unbinding = async (found: CheckedPaths, ...paths: NamedPath[]) => {
    await Promise.all(ownPaths(found, paths).map(path => names?.unbound(path)));
  };
  const keepingFrom = async (found: CheckedPaths, message: MessageRecord, idOf: () => Promise<string | undefined>) => {
    const from = formulaIdOf(message.from) ?? message.from;
    const fromHost = from === found.hostId;
    if (names?.keeping === undefined || fromHost) return;
    const id = await idOf();
    if (id !== undefined) await names.keeping(id, from, fromHost);
  };
  return harden({ assertMayChange, binding, unbinding, keepingFrom });
};
harden(makeNameGuard);

// src/local-daemon/kernel/: the formula table and ids, formulas made and
// collected, stored values, and the instrument on every call.
// Imports: src/daemon and below, and the rest of src/local-daemon.
//
// The kernel: the daemon's formula table (its "disk"), the memo of live
// values (what is incarnated now), and the map from live values back to
// their ids and to their name hubs. Everything else is built on it.
import { q } from '@endo/errors';
import { makeRandomHex } from './ids.js';
import { nameRulesFor } from '../names/names.js';
import type { NameRules } from '../names/name-rules.js';
import type { NameFeed, PetStore } from '../names/pet-store.js';
import type { Mailbox } from '../mail/mailbox-state.js';
import type { Dialect } from '../../daemon/dialect.js';

/**
 * What a name hub can do; agents, directories and the MAIL hubs implement
 * it. Methods may answer with a promise when the hub is remote.
 */
export interface Hub {
  has(name: string): boolean | Promise<boolean>;
  identify(name: string): string | undefined | Promise<string | undefined>;
  lookup(name: string): unknown;
  list(): string[] | Promise<string[]>;
  reverseIdentify(id: string): string[] | Promise<string[]>;
  write(name: string, id: string): void | Promise<void>;
  remove(name: string): void | Promise<void>;
  rename(from: string, to: string): void | Promise<void>;
  /** Special names and pet store, for hubs that can be followed. */
  readonly feed?: NameFeed;
}

export interface AgentFormula {
  readonly type: 'host' | 'guest';
  readonly handle: string;
  /** The handle of the host that made this agent (own handle for the root host). */
  readonly hostHandle: string;
  readonly store: PetStore;
  /** Special name → id, in the order the daemon lists them in errors. */
  readonly specials: Readonly<Record<string, string>>;
  readonly mailbox: Mailbox;
}

export interface CapletFormula {
  readonly type: 'make-unconfined';
  readonly worker: string;
  readonly powers: string;
  /** An absolute path or file: URL, or undefined for an in-process make. */
  readonly specifier: string | undefined;
  /** Key of an in-process make function (LocalDaemon.makeCaplet). */
  readonly local: string | undefined;
  readonly env: Readonly<Record<string, string>>;
}

/** Code evaluated in a worker with named endowments (spec §4.3; next spec §6). */
export interface EvalFormula {
  readonly type: 'eval';
  readonly worker: string;
  readonly source: string;
  readonly codeNames: readonly string[];
  /** The endowments' ids, one per code name. */
  readonly values: readonly string[];
}

export type Formula =
  | { readonly type: 'endo' | 'worker' | 'least-authority' | 'pet-inspector' }
  | { readonly type: 'directory'; readonly store: PetStore }
  | { readonly type: 'handle' | 'mail-hub'; readonly agent: string }
  | { readonly type: 'marshal'; readonly body: string; readonly slots: readonly string[] }
  | AgentFormula
  | CapletFormula
  | EvalFormula;

export type FormulaType = Formula['type'];

/** Turns a formula into its live value; set up by the daemon's assembly. */
export type Maker = (id: string, formula: Formula) => unknown;

export interface Kernel {
  /** The guest API generation this daemon speaks. */
  readonly dialect: Dialect;
  readonly nodeNumber: string;
  /** The dialect's name syntax. */
  readonly rules: NameRules;
  /** A fresh message id of the dialect's length. */
  mintMessageId(): string;
  readonly formulas: Map<string, Formula>;
  mintId(): string;
  formulate(formula: Formula): string;
  register(id: string, formula: Formula): void;
  formulaOf(id: string): Formula;
  /** The live value of a formula: a value, or a promise for a caplet's. */
  provide(id: string): unknown;
  /**
   * Something collection depends on changed (a formula made, a name bound
   * or unbound, mail delivered or dismissed).
   */
  markDirty(): void;
  /** Whether anything changed since the last call; clears the mark. */
  takeDirty(): boolean;
  /** Forgets the memoised value, so the next provide() makes a new one. */
  forget(id: string): void;
  setMaker(maker: Maker): void;
  hubOf(value: unknown): Hub | undefined;
  setHub(value: object, hub: Hub): void;
  idOf(value: unknown): string | undefined;
  noteValue(value: unknown, id: string): void;
}

export const makeKernel = (dialect: Dialect = 'feb'): Kernel => {
  const nodeNumber = makeRandomHex(dialect);
  const formulas = new Map<string, Formula>();
  const values = new Map<string, unknown>();
  const hubs = new WeakMap<object, Hub>();
  const valueIds = new WeakMap<object, string>();
  let maker: Maker | undefined;
  // As upstream's formula graph: a collection pass only runs after a change.
  let dirty = true;

  const mintId = () => `${makeRandomHex(dialect)}:${nodeNumber}`;
  const register = (id: string, formula: Formula) => {
    formulas.set(id, formula);
    dirty = true;
  };
  const formulaOf = (id: string): Formula => {
    const formula = formulas.get(id);
    if (formula === undefined) {
      throw Error(`No formula for identifier ${q(id)}`);
    }
    return formula;
  };
  const noteValue = (value: unknown, id: string) => {
    if ((typeof value === 'object' && value !== null) || typeof value === 'function') {
      valueIds.set(value, id);
    }
  };

  return harden({
    dialect,
    nodeNumber,
    rules: nameRulesFor(dialect),
    mintMessageId: () => makeRandomHex(dialect),
    formulas,
    mintId,
    formulate: (formula: Formula) => {
      const id = mintId();
      register(id, formula);
      return id;
    },
    register,
    formulaOf,
    markDirty: () => {
      dirty = true;
    },
    takeDirty: () => {
      const was = dirty;
      dirty = false;
      return was;
    },
    provide: (id: string) => {
      if (values.has(id)) return values.get(id);
      const formula = formulaOf(id);
      if (maker === undefined) throw Error('The kernel has no maker yet');
      const value = maker(id, formula);
      // Stored data is copied afresh on every lookup, so it is not memoised.
      if (formula.type !== 'marshal') values.set(id, value);
      noteValue(value, id);
      return value;
    },
    forget: (id: string) => {
      values.delete(id);
    },
    setMaker: (newMaker: Maker) => {
      maker = newMaker;
    },
    hubOf: (value: unknown) =>
      typeof value === 'object' && value !== null ? hubs.get(value) : undefined,
    setHub: (value: object, hub: Hub) => {
      hubs.set(value, hub);
    },
    idOf: (value: unknown) =>
      typeof value === 'object' && value !== null ? valueIds.get(value) : undefined,
    noteValue,
  });
};
harden(makeKernel);

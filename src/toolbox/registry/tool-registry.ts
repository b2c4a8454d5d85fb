// src/toolbox/registry/: the live view of fae's tools/ directory and of the
// tools introduced to it, and what is offered from them.
// Imports: the layers below src/toolbox, and the rest of src/toolbox.
//
// The live tool registry: instead of listing tools/ and reading every
// tool's schema at the start of each turn (and again after every round of
// tool calls), fae follows the directory's name changes and reads a tool
// only when its name is added or comes to name another formula. A turn
// then costs no daemon call for discovery at all.
//
// While it is not following (before the first subscription has caught up,
// or after one ended or failed and until a new one has), discovery falls
// back to listing, exactly as discoverTools does, and says so in the log:
// fae never works from a set it cannot vouch for. FAE_TOOL_DISCOVERY=list
// keeps that listing behaviour for good (the naive mode the bench compares).
import { E } from '@endo/far';
import type { GuestPowers, Ref } from '../../daemon/endo-types.js';
import type { Logger } from '../../logging/log.js';
import { silentLogger } from '../../logging/log.js';
import { makeFollowReader } from '../../daemon/follow-reader.js';
import { withTimeout } from '../../timeout.js';
import { discoverTools } from '../tools.js';
import { TOOLS_DIRECTORY, type DiscoveredTools, type FaeTool } from '../discovered-tools.js';
import { assembleTools, readBuiltIns, readToolEntry } from './tool-entries.js';
import type { ToolEntry } from './tool-entries.js';
import { makeToolReports } from './offered-tools.js';
import type { DirectoryIn } from '../capabilities/method-tool.js';
import { followToolsDirectory } from './tools-follower.js';
import { watchToolsBinding } from './tools-binding.js';
import type { NameChange, OpenFollower } from './tools-follower.js';
import { watchOwnNames } from '../../daemon/own-names.js';
import { DEFAULT_RETRY_MS, type RetryMs } from '../../daemon/backoff.js';
import type { OwnNamesWatch } from '../../daemon/own-names.js';

export type ToolDiscovery = 'follow' | 'list';

export interface ToolRegistryOptions {
  readonly logger?: Logger;
  /** Upper bound for one tool's schema() answer, in ms. */
  readonly timeoutMs?: number;
  /** Problems already reported, shared with discoverTools's fallback. */
  readonly reported?: Set<string>;
  /** 'list' reads every tool on every call of current() (the old way). */
  readonly discovery?: ToolDiscovery;
  /**
   * Turns the far reference followNameChanges() answers into a local
   * iterator; the reader for the August stream wrapper plugs in here.
   */
  readonly openFollower?: OpenFollower;
  /** Waits before re-subscribing: first, then doubling up to max, in ms. */
  readonly retryMs?: RetryMs;
  /**
   * The watch of fae's top-level names, shared with others who need it;
   * by default the registry makes its own (and stops it with itself).
   */
  readonly ownNames?: OwnNamesWatch;
  /** Gives a capability's method calls the turn's authority; without it, only FaeTools are offered. */
  readonly directoryIn?: DirectoryIn;
}

export interface ToolRegistry {
  /**
   * What the model may be offered now. While following this makes no
   * daemon call, and answers the same object until something changed.
   */
  current(): Promise<DiscoveredTools>;
  /**
   * Starts following tools/; resolves once the first subscription has
   * caught up, or has failed (discovery then lists until a retry works).
   */
  start(): Promise<void>;
  /**
   * fae itself changed `path` under its directory (adoptTool, store,
   * remove): read that one name now, so the change is seen in this very
   * turn without waiting for the follower or re-reading everything.
   */
  noteChanged(path: readonly string[]): Promise<void>;
  /**
   * What tools/ holds (pet name → formula id) while following; undefined
   * while discovery lists, when only the daemon knows.
   */
  installed(): ReadonlyMap<string, string> | undefined;
  /** Stops following; current() lists from then on. */
  stop(): void;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * What tools/ holds as far as the subscription told: pet name → entry,
 * each read once per (name, formula id). `changed` is told of every change.
 */
const makeKnownTools = ({ logger, timeoutMs, changed }: { logger: Logger; timeoutMs: number; changed: () => void }) => {
  const entries = new Map<string, ToolEntry>();

  const isCurrent = (entry: ToolEntry) => {
    const live = entries.get(entry.petName);
    if (live === entry) return 'current';
    return live === undefined ? 'removed' : 'replaced';
  };

  /** The name now points at `id` (undefined: unbound) in `from`. */
  const learn = (from: unknown, petName: string, id: string | undefined, announce: boolean) => {
    const known = entries.get(petName);
    if (id === undefined) {
      if (known === undefined) return;
      entries.delete(petName);
      changed();
      if (announce) logger.event('tool-removed', { tool: `${TOOLS_DIRECTORY}/${petName}` });
      return;
    }
    if (known?.id === id) return;
    entries.set(petName, readToolEntry(from, petName, id, timeoutMs));
    changed();
    if (announce) {
      logger.event(known === undefined ? 'tool-added' : 'tool-replaced', {
        tool: `${TOOLS_DIRECTORY}/${petName}`,
      });
    }
  };
  return { entries, isCurrent, learn };
};

/** How the registry reads tools/ now: following it (the directory it follows), or listing it each turn, and why (logged once a stretch). */
interface Reading {
  directory: unknown;
  following: boolean;
  listingReason: string | undefined;
  listingLogged: boolean;
}

/** Follows tools/ into `known`, noting in `reading` whether it follows or must list. */
const followInto = (
  powers: Ref<GuestPowers>,
  reading: Reading,
  { entries, learn }: ReturnType<typeof makeKnownTools>,
  { openFollower, retryMs, timeoutMs, logger, changed, isStopped }: {
    openFollower: OpenFollower;
    retryMs: RetryMs;
    timeoutMs: number;
    logger: Logger;
    changed: () => void;
    isStopped: () => boolean;
  },
) =>
  followToolsDirectory(powers, {
    openFollower,
    retryMs,
    syncTimeoutMs: timeoutMs,
    onSubscribed: dir => {
      reading.directory = dir;
    },
    onChange: (change, announce) => {
      if ('add' in change) learn(reading.directory, change.add, change.id, announce);
      else learn(reading.directory, change.remove, undefined, announce);
    },
    onCaughtUp: (names, restored) => {
      // Names that went while nobody was following are gone now.
      for (const petName of [...entries.keys()]) {
        if (!names.has(petName)) learn(reading.directory, petName, undefined, restored);
      }
      reading.following = true;
      reading.listingReason = undefined;
      changed();
      logger.event(restored ? 'tools-follow-restored' : 'tools-following', { tools: entries.size });
    },
    onLost: (error, retryInMs) => {
      reading.following = false;
      reading.listingReason = 'the tools/ subscription was lost';
      reading.listingLogged = false;
      changed();
      logger.warn('tools-follow-lost', { error, retryInMs, fallback: 'listing tools/ each turn' });
    },
    isStopped,
  });

export const makeToolRegistry = (
  powers: Ref<GuestPowers>,
  builtIns: ReadonlyMap<string, FaeTool>,
  {
    logger = silentLogger,
    timeoutMs = DEFAULT_TIMEOUT_MS,
    reported = new Set(),
    discovery = 'follow',
    openFollower = ref => makeFollowReader<NameChange>(ref as object),
    retryMs = DEFAULT_RETRY_MS,
    ownNames,
    directoryIn,
  }: ToolRegistryOptions = {},
): ToolRegistry => {
  const reports = makeToolReports(logger, reported);
  const list = () => discoverTools(powers, builtIns, { logger, timeoutMs, reported, directoryIn });

  let stopped = discovery === 'list';
  let snapshot: Promise<DiscoveredTools> | undefined;
  const builtInSchemas = readBuiltIns(builtIns);
  // Reported through the fallback; the turn itself needs no handler.
  builtInSchemas.catch(() => {});

  const changed = () => {
    snapshot = undefined;
  };
  const known = makeKnownTools({ logger, timeoutMs, changed });
  const { entries, isCurrent, learn } = known;
  const reading: Reading = { directory: undefined, following: false, listingReason: 'not following tools/ yet', listingLogged: false };
  const follower = followInto(powers, reading, known, { openFollower, retryMs, timeoutMs, logger, changed, isStopped: () => stopped });

  const names = ownNames ?? watchOwnNames(powers, { logger, openFollower, retryMs });
  const binding = watchToolsBinding(names, () => follower.resubscribe());

  // Not async: the snapshot, a promise already, goes as it is (an async
  // function would wrap it in one more, a few ticks at every model call).
  const current = (): Promise<DiscoveredTools> => {
    if (!reading.following) {
      if (!reading.listingLogged && discovery === 'follow' && reading.listingReason !== undefined) {
        reading.listingLogged = true;
        logger.event('tools-listed', { reason: reading.listingReason });
      }
      return list();
    }
    if (snapshot === undefined) {
      const building = builtInSchemas.then(schemas =>
        assembleTools(schemas, [...entries.values()], isCurrent, reports, directoryIn),
      );
      snapshot = building;
      // A failed build is not kept: the next call tries again.
      building.catch(() => {
        if (snapshot === building) snapshot = undefined;
      });
    }
    return snapshot;
  };

  const noteChanged = async (path: readonly string[]) => {
    if (!reading.following || path[0] !== TOOLS_DIRECTORY) return;
    if (path.length === 1) {
      // tools/ itself was replaced or removed: follow what is there now.
      follower.resubscribe();
      return;
    }
    if (path.length !== 2) return;
    const dir = reading.directory;
    // `any`: the directory is a remote reference.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const id = (await E(dir as any).identify(path[1]).catch(() => undefined)) as string | undefined;
    if (dir === reading.directory) learn(dir, path[1], id, true);
  };

  return harden({
    current,
    start: async () => {
      if (stopped) return;
      binding.start();
      // Bounded: a daemon that never answers must not hold fae's startup;
      // until the subscription catches up, discovery lists.
      await withTimeout(follower.start(), timeoutMs, () => 'tools/ subscription').catch(() => {});
    },
    noteChanged,
    installed: () =>
      reading.following ? new Map([...entries.values()].map(entry => [entry.petName, entry.id] as const)) : undefined,
    stop: () => {
      stopped = true;
      reading.following = false;
      reading.listingReason = undefined;
      follower.stop();
      binding.stop();
      if (ownNames === undefined) names.stop();
    },
  });
};
harden(makeToolRegistry);

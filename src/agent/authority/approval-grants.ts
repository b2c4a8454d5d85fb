// Standing approvals: the host answered "always" (for whoever asked) or
// "always for everyone", and that tool needs no approval from then on, for
// them. Each grant is a record in the value `approval-grants` in
// fae's directory, sealed from fae's tools like its conversations: the
// model can neither read, forge nor remove one. The host sees them in
// status() (and /approvals, npm start's /list) by number, and revokes one
// with /revoke N, the controller's revokeGrant(N), or all at once by
// removing the value. The value is read again before every call that would
// need approval, so a revocation counts from the next call on.
//
// A grant names a tool from tools/ by the capability it is (its formula
// id), not by its name: a tool put in its place under the same name is
// asked for again. A built-in is named by its name.
//
// A grant may also let a capability go to one recipient (give: true): the
// host answered "always" when fae's model wanted to hand it over. It names
// both by id, so renaming either changes nothing.
import { E } from '@endo/far';
import { M, matches } from '@endo/patterns';
import type { GuestPowers, Ref } from '../../daemon/endo-types.js';
import type { Logger } from '../../logging/log.js';
import { makeOrderedWrites } from '../../daemon/ordered-writes.js';

/** The sealed name fae keeps the grants under. */
export const GRANTS_NAME = 'approval-grants';

export interface Grant {
  /** How the host names it to revoke it. */
  readonly number: number;
  /** The tool's name as the model calls it, for the host. */
  readonly tool: string;
  /** The formula id of the tool under tools/; none for a built-in. */
  readonly toolId?: string;
  /** Whose turns it covers (the sender's raw id); none: everyone's. */
  readonly correspondent?: string;
  /** Whose turns, for the host: a pet name, or "everyone". */
  readonly who: string;
  /** When the host granted it (ISO). */
  readonly granted: string;
  /** A grant to hand the capability `toolId` to `correspondent`, not to call a tool. */
  readonly give?: boolean;
  /** For a capability that is not a FaeTool: the one method it covers. */
  readonly method?: string;
}

const GrantShape = M.splitRecord(
  { number: M.number(), tool: M.string(), who: M.string(), granted: M.string() },
  { toolId: M.string(), correspondent: M.string(), give: M.boolean(), method: M.string() },
);
const StoredShape = M.splitRecord({ grants: M.arrayOf(GrantShape) });

/** A tool as a grant names it. */
export interface GrantedTool {
  readonly tool: string;
  readonly toolId: string | undefined;
  /** For a capability that is not a FaeTool: the method called; a grant covers that method alone. */
  readonly method?: string;
}

const covers = (grant: Grant, { tool, toolId, method }: GrantedTool, correspondent: string) =>
  grant.give !== true &&
  (grant.toolId === undefined ? toolId === undefined && grant.tool === tool : grant.toolId === toolId) &&
  grant.method === method &&
  (grant.correspondent === undefined || grant.correspondent === correspondent);

export const makeApprovalGrants = ({ powers, logger, now = () => new Date() }: { powers: Ref<GuestPowers>; logger: Logger; now?: () => Date }) => {
  /** The grants as last read or written. */
  let grants: readonly Grant[] = harden([]);
  /** Writes, one at a time, each of the grants as they are then; the last, to read after. */
  const store = makeOrderedWrites(powers, GRANTS_NAME);
  let writing: Promise<void> = Promise.resolve();

  /** The stored grants; what fae knew when the daemon cannot say. */
  const read = async (): Promise<readonly Grant[]> => {
    // After fae's own writes: what it wrote last is what it reads.
    await writing;
    try {
      const value = (await E(powers).has(GRANTS_NAME)) ? await E(powers).lookup(GRANTS_NAME) : harden({ grants: [] });
      if (!matches(value, StoredShape)) {
        logger.warn('approval-grants-unreadable', { name: GRANTS_NAME });
        grants = harden([]);
      } else {
        grants = (value as { grants: readonly Grant[] }).grants;
      }
    } catch (error) {
      logger.warn('approval-grants-unread', { error });
    }
    return grants;
  };

  const write = () => {
    const value = harden({ grants: [...grants] });
    writing = store(value).catch(error => logger.warn('approval-grants-not-stored', { error }));
    return writing;
  };

  /** Adds a grant of the next number, granted now; resolves with it once stored. */
  const append = async (fields: Omit<Grant, 'number' | 'granted'>) => {
    await read();
    const number = grants.reduce((most, grant) => Math.max(most, grant.number), 0) + 1;
    const grant: Grant = harden({ number, ...fields, granted: now().toISOString() });
    grants = harden([...grants, grant]);
    await write();
    return grant;
  };

  return harden({
    /** Reads the stored grants (at start, so status() shows them). */
    start: async () => {
      await read();
    },
    /** The grant that covers this tool in `correspondent`'s turns, read afresh. */
    find: async (tool: GrantedTool, correspondent: string) => (await read()).find(grant => covers(grant, tool, correspondent)),
    /** Records a grant; resolves with it once stored. */
    add: async (tool: GrantedTool, whose: { correspondent: string; who: string } | undefined) =>
      append({
        tool: tool.tool,
        ...(tool.toolId === undefined ? {} : { toolId: tool.toolId }),
        ...(tool.method === undefined ? {} : { method: tool.method }),
        ...(whose === undefined ? { who: 'everyone' } : { correspondent: whose.correspondent, who: whose.who }),
      }),
    /** The grant that lets capability `capabilityId` go to `recipientId`, read afresh. */
    findGive: async (capabilityId: string, recipientId: string) =>
      (await read()).find(grant => grant.give === true && grant.toolId === capabilityId && grant.correspondent === recipientId),
    /** Records that capability `capabilityId` (`shown`) may go to `recipientId` (`who`); resolves with the grant once stored. */
    addGive: async ({ capabilityId, shown, recipientId, who }: { capabilityId: string; shown: string; recipientId: string; who: string }) =>
      append({ tool: `give ${shown}`, toolId: capabilityId, correspondent: recipientId, who, give: true }),
    /** Revokes grant `number`; resolves with it, or undefined when there is none. */
    revoke: async (number: number) => {
      await read();
      const found = grants.find(grant => grant.number === number);
      if (found === undefined) return undefined;
      grants = harden(grants.filter(grant => grant !== found));
      await write();
      return found;
    },
    /** The grants as last read, for status(): no ids. */
    list: () => harden(grants.map(({ number, tool, who, granted }) => harden({ number, tool, for: who, granted }))),
  });
};
harden(makeApprovalGrants);
export type ApprovalGrants = ReturnType<typeof makeApprovalGrants>;

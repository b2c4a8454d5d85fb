// The chat's daemon side: an in-process local daemon, speaking the chosen
// generation's dialect, whose root host is the user, provisioned exactly as
// the setup scripts provision a real one (src/provisioning/): the host is
// read first (its dialect gives the special names), then the example and
// filesystem tool caplets go in the host's inventory, the guest `fae` gets
// powers `profile-for-fae`, and the caplet `controller-for-fae` runs the
// built dist/agent.js through makeUnconfined with the user's LAL_*/FAE_*
// settings as env. Then it follows the host's inbox, handing every message
// from fae to the screen (mail-feed.ts), and the running fae's events
// (fae-follower.ts), following the new fae's after /reset.
import { E } from '@endo/far';
import { makeLocalDaemon } from '../local-daemon/index.js';
import { makeDaemonAdapter, type DaemonAdapter } from '../daemon/adapter.js';
import { type Dialect, formulaIdOf } from '../daemon/dialect.js';
import { messageText } from '../daemon/message-format.js';
import type { MessageRecord } from '../daemon/endo-types.js';
import { followMail, type MailView, type Shown } from './mail-feed.js';
import { followRunningFae, type FaeEvent } from './fae-follower.js';
import {
  EXAMPLE_TOOLS,
  FS_TOOLS,
  type FaeSetupConfig,
  type ToolCaplet,
} from '../provisioning/provisioning.js';
import { inspectHost } from '../provisioning/host-state.js';
import { provideToolCaplets } from '../provisioning/tool-caplets.js';
import { provideFae, retireFae, startFae } from '../provisioning/fae-caplet.js';
import type { PendingAnswers } from './pending.js';
import { makeChatApprovals, type WaitingApproval } from './approvals.js';
import { CONVERSATIONS_DIRECTORY } from '../conversations/store/store.js';

/** The tools the user can mail to fae with /give. */
export const CHAT_TOOLS: readonly ToolCaplet[] = harden([...EXAMPLE_TOOLS, ...FS_TOOLS]);

export interface ToolView {
  readonly petName: string;
  /** The name the model calls it by, from its schema. */
  readonly toolName: string;
  readonly description: string;
}

export interface SessionOptions {
  /** The daemon generation the local host speaks. */
  readonly dialect: Dialect;
  readonly config: FaeSetupConfig;
  /** The filesystem tools' root (FAE_CWD for their caplets). */
  readonly root: string;
  readonly pending: PendingAnswers;
  /**
   * A message from fae (or anyone but the user) arrived or was edited:
   * 'mail' to print, 'edited' to print as an edit of one printed before,
   * 'progress' for a revision still being written (not for the transcript).
   */
  readonly onMail: (mail: MailView, shown: Exclude<Shown, 'skip'>) => void;
  /** One of the running fae's events. */
  readonly onFaeEvent: (event: FaeEvent) => void;
  /** A new fae has started (after reset), or its events ended: its status() may have news. */
  readonly onFaeNews?: () => void;
  /** The inbox could not be followed any more (other than at stop). */
  readonly onFollowError?: (error: unknown) => void;
  /** fae's approval requests waiting for the user changed: `added` arrived (approvals.ts). */
  readonly onApprovals?: (waiting: readonly WaitingApproval[], added?: WaitingApproval) => void;
}

// `any`: the host is a remote presence; E() checks nothing statically.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

/**
 * A message as the chat shows it: `from` and `to` named as the user knows
 * them (you, fae, or the host's pet name for them).
 */
const mailViews = (hostDaemon: DaemonAdapter, { faeId, guest }: { readonly faeId: string; readonly guest: string }) => {
  const nameOf = async (idOrLocator: string): Promise<string> => {
    const id = formulaIdOf(idOrLocator) ?? idOrLocator;
    if (id === hostDaemon.selfId) return 'you';
    if (id === faeId) return guest;
    const petNames = await hostDaemon.senderNames(idOrLocator).catch(() => []);
    return petNames[0] ?? 'someone';
  };
  return async (record: MessageRecord): Promise<MailView> => {
    const [from, to] = await Promise.all([nameOf(record.from), nameOf(record.to)]);
    return harden({ number: record.number, from, to, text: messageText(record) });
  };
};

/** fae's pet names (`agent` is its powers' name in the host), and the names in its tools/ directory. */
const faeNamesOf = async (host: Far, agent: string) => {
  const [top, tools] = (await Promise.all([E(host).list(agent), E(host).list(agent, 'tools').catch(() => [])])) as [
    string[],
    string[],
  ];
  return harden({ names: top, tools });
};

/** The tools /give can mail, with what their schemas say. */
const toolViewsOf = (host: Far): Promise<ToolView[]> =>
  Promise.all(
    CHAT_TOOLS.map(async ({ petName }) => {
      try {
        const schema = (await E(E(host).lookup(petName)).schema()) as {
          function: { name: string; description: string };
        };
        return { petName, toolName: schema.function.name, description: schema.function.description };
      } catch (error) {
        const problem = error instanceof Error ? error.message : String(error);
        return { petName, toolName: '?', description: `(unavailable: ${problem})` };
      }
    }),
  );

/**
 * The host made ready as the setup scripts make it: read once (its dialect
 * gives the special names later lookups use), the example and filesystem
 * tools (rooted at `root`), and fae.
 */
const provision = async (host: Far, config: SessionOptions['config'], root: string) => {
  const state = await inspectHost(host, config.names);
  await Promise.all([
    provideToolCaplets(host, EXAMPLE_TOOLS, {}, state),
    provideToolCaplets(host, FS_TOOLS, harden({ FAE_CWD: root }), state),
  ]);
  await provideFae(host, config, [], state);
  return state;
};

export const startChatSession = async ({
  dialect,
  config,
  root,
  pending,
  onMail,
  onFaeEvent,
  onFaeNews = () => {},
  onFollowError = () => {},
  onApprovals = () => {},
}: SessionOptions) => {
  const daemon = makeLocalDaemon({ dialect });
  const host: Far = await daemon.host;
  let stopping = false;

  const { names } = await provision(host, config, root);
  const { guest, agent, controller } = config.names;
  // Followed once started (startFae waits for that), until it is replaced or stopped.
  const fae = followRunningFae(() => E(host).lookup(controller), {
    onEvent: onFaeEvent,
    onEnd: () => onFaeNews(),
  });
  await fae.follow();

  // The host's own adapter: the daemon's generation stays behind it.
  const [hostDaemon, faeId] = (await Promise.all([
    makeDaemonAdapter(host),
    E(host).identify(guest),
  ])) as [Awaited<ReturnType<typeof makeDaemonAdapter>>, string];
  const approvals = makeChatApprovals(host, { onChange: onApprovals });

  const view = mailViews(hostDaemon, { faeId, guest });

  followMail(hostDaemon, {
    // What the user wrote to fae; not an answer to a form of fae's (a value), which starts no turn.
    onOwn: record => {
      if (record.type === 'package' && formulaIdOf(record.to) === faeId && record.messageId !== undefined) pending.ownCopy(record.messageId);
    },
    // fae's approval requests are shown and answered apart (approvals.ts).
    onRevision: async (record, shown) => (approvals.consider(record) ? undefined : onMail(await view(record), shown)),
  }).catch(error => {
    if (!stopping) onFollowError(error);
  });

  /** Mails fae; the package's strings interleave with the attachments. */
  const sendToFae = async (strings: string[], edgeNames: string[], petNames: string[]) => {
    const failed = pending.sending();
    try {
      await E(host).send(guest, harden(strings), harden(edgeNames), harden(petNames));
    } catch (error) {
      failed();
      throw error;
    }
  };

  return harden({
    /** Sends what the user typed. */
    say: (text: string) => sendToFae([text], [], []),

    /** Mails fae one of the host's tool capabilities, as the Endo UI would. */
    give: (petName: string, text?: string) =>
      sendToFae([text ? `${text} ` : 'Here is a tool for you: ', ''], [petName], [petName]),

    /** The tools /give can mail, with what their schemas say. */
    tools: () => toolViewsOf(host),

    /** fae's approval requests waiting for the user, and their answers (approvals.ts). */
    approvals,

    /** fae's name for the user (the host's special name): the user's own line of /usage reads "you". */
    hostName: names.host,

    /** Revokes fae's standing approval `number`; whether there was one. */
    revokeGrant: async (number: number) => {
      const current = fae.controller();
      return current === undefined ? false : ((await E(current).revokeGrant(number)) as boolean);
    },

    /** The host's undismissed messages: the conversation so far. */
    inbox: async (): Promise<MailView[]> => {
      const records = (await E(host).listMessages()) as MessageRecord[];
      return Promise.all(records.map(view));
    },

    /** fae's pet names, and the names in its tools/ directory. */
    names: () => faeNamesOf(host, agent),

    /**
     * Restarts fae with an empty conversation: the running caplet is
     * cancelled through its context, the mail it has not handled yet is
     * dismissed (so the new fae does not replay it), and a new caplet is
     * made from dist/agent.js. fae's directory, with its adopted tools, stays.
     */
    reset: async () => {
      await fae.unfollow();
      // Unpinned before it is cancelled, as setup-replace does: a pinned
      // fae that is cancelled is revived.
      await retireFae(host, await inspectHost(host, config.names));
      await E(E(host).lookup(agent)).dismissAll();
      // Its stored conversations go too (src/conversations/), or the new fae would resume them.
      await E(host).remove(agent, CONVERSATIONS_DIRECTORY).catch(() => {});
      pending.clear();
      await startFae(host, config, names);
      await fae.follow();
      onFaeNews();
    },

    /** What the running fae says of itself; undefined while it is being replaced or stopped. */
    faeStatus: async () => {
      const current = fae.controller();
      if (current === undefined || stopping) return undefined;
      const status = (await E(current).status()) as { readonly state: string; readonly lastError: string };
      return current === fae.controller() ? status : undefined;
    },

    /** Cancels fae through its context, then stops the daemon. */
    stop: async () => {
      stopping = true;
      await fae.unfollow();
      await E(host).cancel(controller).catch(() => {});
      await daemon.stop();
    },
  });
};
export type ChatSession = Awaited<ReturnType<typeof startChatSession>>;

// Requests (spec §4.3): `request` mails a description and waits for the
// answer, which the recipient gives with `resolve` (a named value) or
// `reject` (a reason). Both copies of the request share one pending entry
// in the post office, so whichever copy is answered settles it.
import { q } from '@endo/errors';
import { makePromiseKit } from '@endo/promise-kit';
import type { AgentFormula, Kernel } from '../kernel/kernel.js';
import type { DirectoryOps } from '../names/directory.js';
import type { WireMessage } from './mailbox-state.js';
import type { PostOffice } from './post-office.js';

type NameOrPath = string | readonly string[];

/**
 * A request's pending answer, shared by both copies of its message through
 * the post office: `answer` resolves with the id the recipient names, or
 * rejects with its reason; `settled` says which, for the records.
 */
export const openRequest = (kernel: Kernel, post: PostOffice) => {
  const answer = makePromiseKit<string>();
  const settled = makePromiseKit<'fulfilled' | 'rejected'>();
  const resolverId = kernel.mintId();
  let done = false;
  const settle = (outcome: 'fulfilled' | 'rejected') => {
    done = true;
    post.requests.delete(resolverId);
    settled.resolve(outcome);
  };
  post.requests.set(resolverId, {
    resolveWithId: id => {
      if (done) return;
      settle('fulfilled');
      answer.resolve(id);
    },
    reject: reason => {
      if (done) return;
      settle('rejected');
      answer.reject(Error(reason));
    },
  });
  return harden({ resolverId, promiseId: kernel.mintId(), settled: settled.promise, answer: answer.promise });
};
harden(openRequest);

export const makeRequestOps = (
  kernel: Kernel,
  agent: AgentFormula,
  names: DirectoryOps,
  post: PostOffice,
  dispatch: (to: string, wire: WireMessage) => void,
) => {
  const { mailbox } = agent;
  const { namePathFrom, petNamePathFrom } = kernel.rules;
  const isFeb = kernel.dialect === 'feb';
  const selfId = agent.handle;
  return harden({
    request: async (recipient: NameOrPath, description: string, responseName?: NameOrPath) => {
      if (responseName !== undefined) {
        const path = petNamePathFrom(responseName);
        if ((await names.identifyPath(path).catch(() => undefined)) !== undefined) {
          return names.lookup(path);
        }
      }
      const path = namePathFrom(recipient);
      const to = await names.identifyPath(path).catch(() => undefined);
      if (to === undefined) throw Error(`Unknown recipient ${path.join(isFeb ? '.' : '/')}`);
      const pending = openRequest(kernel, post);
      dispatch(
        to,
        harden({
          type: 'request',
          description,
          promiseId: pending.promiseId,
          resolverId: pending.resolverId,
          settled: pending.settled,
          messageId: kernel.mintMessageId(),
          from: selfId,
          to,
        }),
      );
      const id = await pending.answer;
      if (responseName !== undefined) await names.write(responseName, id);
      return kernel.provide(id);
    },
    resolve: async (number: bigint, nameOrPath: NameOrPath) => {
      const record = mailbox.get(number);
      if (record === undefined) throw Error(`Invalid request, ${q(number)}`);
      const id = await names.identifyPath(namePathFrom(nameOrPath)).catch(() => undefined);
      if (id === undefined) throw Error(`No formula exists for the pet name ${q(nameOrPath)}`);
      post.requests.get(record.resolverId as string)?.resolveWithId(id);
    },
    reject: async (number: bigint, reason = 'Declined') => {
      const record = mailbox.get(number);
      if (record === undefined) {
        // February ignores an unknown number; later generations refuse it.
        if (isFeb) return;
        throw Error(`No such message with number ${q(number)}`);
      }
      post.requests.get(record.resolverId as string)?.reject(reason);
    },
  });
};
harden(makeRequestOps);

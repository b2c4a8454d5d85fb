// Evaluation (spec §4.3; next spec §6): code run in a worker with named
// endowments, as an `eval` formula whose value is what the code returns.
//
// - May and August: an agent's `evaluate(workerName, source, codeNames,
//   namesOrPaths, resultName?)` runs at once, with endowments from its own
//   names; no worker name means a fresh worker.
// - February: a guest's `requestEvaluation(source, codeNames,
//   petNamesOrPaths, resultName?)` mails an `eval-request` to its HOST and
//   waits; the host runs it with `approveEvaluation(number, workerName?)`,
//   its endowments named in the guest's namespace, or declines it with
//   `reject(number, reason)`.
import { E } from '@endo/far';
import { q } from '@endo/errors';
import type { AgentFormula, Kernel } from '../kernel/kernel.js';
import type { DirectoryOps } from '../names/directory.js';
import type { WireMessage } from '../mail/mailbox-state.js';
import type { PostOffice } from '../mail/post-office.js';
import type { Formulator } from '../kernel/formulate.js';
import { makeProvideWorker } from './workers.js';
import { openRequest } from '../mail/mail-requests.js';

type NameOrPath = string | readonly string[];

/** What evaluation borrows from the agent's mail. */
export interface EvalMail {
  readonly post: PostOffice;
  /** Delivers to the recipient's inbox, then to the sender's own. */
  dispatch(to: string, wire: WireMessage): void;
}

/** An eval formula for `source`, its endowments' ids found by `idOf` (which throws for an unknown name). */
const formulateEval = async (
  kernel: Kernel,
  { worker, source, codeNames, paths, idOf }: {
    readonly worker: Promise<string>;
    readonly source: string;
    readonly codeNames: readonly string[];
    readonly paths: readonly (readonly string[])[];
    readonly idOf: (path: readonly string[]) => Promise<string>;
  },
) => {
  const values = await Promise.all(paths.map(idOf));
  return kernel.formulate({ type: 'eval', worker: await worker, source, codeNames: harden([...codeNames]), values: harden(values) });
};

export const makeEvalOps = (kernel: Kernel, agent: AgentFormula, names: DirectoryOps, formulator: Formulator, mail: EvalMail) => {
  const { namePathFrom, petNamePathFrom } = kernel.rules;
  const provideWorker = makeProvideWorker(kernel, agent, names, formulator);
  const ownIdOf = async (path: readonly string[]) => {
    const id = await names.identifyPath(path).catch(() => undefined);
    if (id === undefined) throw Error(`Unknown pet name ${q(path)}`);
    return id;
  };

  if (kernel.dialect !== 'feb') {
    return harden({
      evaluate: async (workerName: string | undefined, source: string, codeNames: readonly string[], namesOrPaths: readonly NameOrPath[], resultName?: NameOrPath) => {
        if (codeNames.length !== namesOrPaths.length) {
          throw Error(`Evaluation must have the same number of code names (${q(codeNames.length)}) as pet names (${q(namesOrPaths.length)})`);
        }
        const paths = namesOrPaths.map(namePathFrom);
        const worker = provideWorker(workerName, { fresh: true });
        const id = await formulateEval(kernel, { worker, source, codeNames, paths, idOf: ownIdOf });
        if (resultName !== undefined) await names.write(petNamePathFrom(resultName), id);
        return kernel.provide(id);
      },
    });
  }
  return harden({
    requestEvaluation: async (source: string, codeNames: readonly string[], petNamesOrPaths: readonly NameOrPath[], responseName?: NameOrPath) => {
      if (responseName !== undefined && (await names.identifyPath(petNamePathFrom(responseName)).catch(() => undefined)) !== undefined) {
        return names.lookup(petNamePathFrom(responseName));
      }
      const petNamePaths = petNamesOrPaths.map(namePathFrom);
      if (codeNames.length !== petNamePaths.length) throw Error('Eval request must have one pet name path for each code name');
      const to = agent.specials.HOST;
      const pending = openRequest(kernel, mail.post);
      const { resolverId, promiseId, settled } = pending;
      mail.dispatch(
        to,
        harden({ type: 'eval-request', source, codeNames: [...codeNames], petNamePaths, promiseId, resolverId, settled, messageId: kernel.mintMessageId(), from: agent.handle, to }),
      );
      const id = await pending.answer;
      if (responseName !== undefined) await names.write(petNamePathFrom(responseName), id);
      return kernel.provide(id);
    },
  });
};
harden(makeEvalOps);

/** February's host: `approveEvaluation(number, workerName?)` runs a guest's eval-request in its inbox. */
export const makeApproveEvaluation =
  (kernel: Kernel, host: AgentFormula, names: DirectoryOps, formulator: Formulator, post: PostOffice) =>
  async (number: bigint, workerName?: string) => {
    if (workerName !== undefined) kernel.rules.assertName(workerName);
    const record = host.mailbox.get(number);
    if (record === undefined) throw Error(`No such message with number ${q(number)}`);
    if (record.type !== 'eval-request') throw Error(`Message ${q(number)} is not an eval-request (is ${q(record.type)})`);
    const handle = kernel.formulaOf(record.from);
    if (handle.type !== 'handle') throw Error(`The sender of message ${q(number)} is not an agent`);
    // The endowments are named in the guest's namespace.
    const guest = kernel.provide(handle.agent);
    const idOf = async (path: readonly string[]) => {
      const id = (await E(guest as never as { identify(...p: string[]): string | undefined }).identify(...path)) as string | undefined;
      if (id === undefined) throw Error(`Unknown pet name ${q(path[0])} in guest namespace`);
      return id;
    };
    const worker = makeProvideWorker(kernel, host, names, formulator)(workerName, { fresh: true });
    const { source, codeNames, petNamePaths } = record as unknown as { source: string; codeNames: string[]; petNamePaths: string[][] };
    const evalId = await formulateEval(kernel, { worker, source, codeNames, paths: petNamePaths, idOf });
    post.requests.get(record.resolverId as string)?.resolveWithId(evalId);
  };
harden(makeApproveEvaluation);

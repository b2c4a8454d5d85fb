// Caplet incarnation (spec §2.1-2.3): one make-unconfined formula becomes
// a live value by asking its worker to run make(powers, context, { env }).
// powers is sent as a promise and the context as a remotable, so the
// caplet receives a promise for a presence and a presence, as in a daemon.
import { E } from '@endo/far';
import { makeExo } from '@endo/exo';
import { makePromiseKit } from '@endo/promise-kit';
import type { CapletFormula, EvalFormula, Kernel } from '../kernel/kernel.js';
import type { Connection } from './connection.js';
import { ContextInterface } from '../interfaces.js';
import { REPORTED_ALREADY, inBackground } from '../../background.js';

/** The worker side's bootstrap (worker.ts), as the daemon sees it. */
interface WorkerBootstrap {
  makeUnconfined(specifier: string, powers: Promise<unknown>, context: object, env: object): unknown;
  makeLocal(key: string | undefined, powers: Promise<unknown>, context: object, env: object): unknown;
  evaluate(source: string, codeNames: readonly string[], values: readonly unknown[]): unknown;
}

interface Incarnation {
  readonly value: Promise<unknown>;
  readonly cancel: (reason: Error) => Promise<void>;
}

export interface CapletRunner {
  incarnate(id: string, formula: CapletFormula): Promise<unknown>;
  /** Cancels the live incarnation of a caplet and every caplet whose powers it is. */
  cancel(id: string, reason: Error): Promise<void>;
  /** Ids of caplets that are incarnated now. */
  live(): string[];
  /** The value of an evaluation: its code run in its worker, with its endowments. */
  evaluate(formula: EvalFormula): Promise<unknown>;
}

/**
 * @param workerFor the connection to a worker formula's process
 */
export const makeCapletRunner = (
  kernel: Kernel,
  workerFor: (workerId: string) => Connection,
): CapletRunner => {
  const incarnations = new Map<string, Incarnation>();

  const cancel = async (id: string, reason: Error): Promise<void> => {
    const incarnation = incarnations.get(id);
    if (incarnation === undefined) return;
    await incarnation.cancel(reason);
  };

  const makeContext = (id: string) => {
    const cancelled = makePromiseKit<never>();
    // Nobody may be listening; the rejection is still delivered to those who are.
    cancelled.promise.catch(() => {});
    const disposed = makePromiseKit<void>();
    let isCancelled = false;

    const cancelThis = async (reason: Error) => {
      if (isCancelled) return disposed.promise;
      isCancelled = true;
      incarnations.delete(id);
      kernel.forget(id);
      cancelled.reject(reason);
      // Cancellation cascades to the caplets that use this one as powers.
      const dependents = [...incarnations.keys()].filter(other => {
        const formula = kernel.formulas.get(other);
        return formula?.type === 'make-unconfined' && formula.powers === id;
      });
      await Promise.all(dependents.map(other => cancel(other, reason)));
      disposed.resolve();
      return disposed.promise;
    };

    const context = makeExo('Context', ContextInterface, {
      id: () => id,
      whenCancelled: () => cancelled.promise,
      whenDisposed: () => disposed.promise,
      cancel: (reason: Error = Error('Cancelled')) => cancelThis(reason),
    });
    return { context, cancelThis };
  };

  const incarnate = (id: string, formula: CapletFormula): Promise<unknown> => {
    const { context, cancelThis } = makeContext(id);
    // A promise, never the powers themselves: the caplet must E() them.
    const powers = Promise.resolve().then(() => kernel.provide(formula.powers));
    const worker = workerFor(formula.worker).farBootstrap as Promise<WorkerBootstrap>;
    const env = harden({ ...formula.env });
    const value: Promise<unknown> =
      formula.specifier !== undefined
        ? E(worker).makeUnconfined(formula.specifier, powers, context, env)
        : E(worker).makeLocal(formula.local, powers, context, env);
    const incarnation = { value, cancel: cancelThis };
    incarnations.set(id, incarnation);
    value.then(
      result => kernel.noteValue(result, id),
      // A failed make cancels the caplet; its name stays bound, and a
      // later lookup makes it again.
      (error: Error) => {
        if (incarnations.get(id) === incarnation) inBackground(cancelThis(error), REPORTED_ALREADY);
      },
    );
    return value;
  };

  const evaluate = async ({ worker, source, codeNames, values }: EvalFormula) => {
    const endowments = await Promise.all(values.map(id => kernel.provide(id)));
    return E(workerFor(worker).farBootstrap as Promise<WorkerBootstrap>).evaluate(source, harden([...codeNames]), harden(endowments));
  };

  return harden({ incarnate, cancel, live: () => [...incarnations.keys()], evaluate });
};
harden(makeCapletRunner);

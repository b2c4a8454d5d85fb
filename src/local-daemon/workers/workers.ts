// src/local-daemon/workers/: where code runs: workers behind a CapTP
// connection, the caplets in them, and evaluation.
// Imports: src/daemon and below, and the rest of src/local-daemon.
//
// Which worker a caplet or an evaluation runs in (spec §2.1; next spec
// §5.2, §6): a name bound to a worker, a new worker bound under an unbound
// pet name, or, for none, a fresh worker (February, or trusted shims) or
// the shared @node worker (May and August).
import type { AgentFormula, Kernel } from '../kernel/kernel.js';
import type { DirectoryOps } from '../names/directory.js';
import type { Formulator } from '../kernel/formulate.js';

export const makeProvideWorker =
  (kernel: Kernel, agent: AgentFormula, names: DirectoryOps, formulator: Formulator) =>
  async (workerName: string | undefined, { fresh }: { readonly fresh: boolean }) => {
    if (workerName === undefined) {
      return fresh ? kernel.formulate({ type: 'worker' }) : formulator.shared.node;
    }
    const existing = await names.identify(workerName);
    if (existing !== undefined) return existing;
    kernel.rules.assertPetName(workerName);
    const workerId = kernel.formulate({ type: 'worker' });
    agent.store.write(workerName, workerId);
    return workerId;
  };
harden(makeProvideWorker);

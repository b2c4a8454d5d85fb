// Formula garbage collection (spec §2.6), simplified: a formula is live if
// it is reachable from the roots through pet-store bindings, special
// names, undismissed mail and formula dependencies. Anything else is
// deleted, and a live caplet among it is cancelled with
// Error('Collected formula').
import type { Formula, Kernel } from './kernel.js';

const dependencies = (formula: Formula): readonly string[] => {
  switch (formula.type) {
    case 'host':
    case 'guest':
      return [
        formula.handle,
        formula.hostHandle,
        ...Object.values(formula.specials),
        ...formula.store.ids(),
        ...formula.mailbox.ids(),
      ];
    case 'directory':
      return formula.store.ids();
    case 'handle':
    case 'mail-hub':
      return [formula.agent];
    case 'marshal':
      return formula.slots;
    case 'make-unconfined':
      return [formula.worker, formula.powers];
    case 'eval':
      return [formula.worker, ...formula.values];
    default:
      return [];
  }
};

/** @returns the ids it deleted */
export const collectGarbage = (
  kernel: Kernel,
  roots: Iterable<string>,
  onCollect: (id: string, formula: Formula) => void,
): string[] => {
  const reachable = new Set<string>();
  const pending = [...roots];
  while (pending.length > 0) {
    const id = pending.pop() as string;
    if (reachable.has(id)) continue;
    reachable.add(id);
    const formula = kernel.formulas.get(id);
    if (formula !== undefined) pending.push(...dependencies(formula));
  }
  const collected = [...kernel.formulas.keys()].filter(id => !reachable.has(id));
  for (const id of collected) {
    const formula = kernel.formulas.get(id) as Formula;
    kernel.formulas.delete(id);
    kernel.forget(id);
    onCollect(id, formula);
  }
  return collected;
};
harden(collectGarbage);

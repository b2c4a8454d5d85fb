// Formula garbage collection (spec §2.6), simplified: a formula is live if
// it is reachable from the roots through pet-store bindings, special
// names, undismissed mail and formula dependencies. Anything else is
// deleted, and a live caplet among it is cancelled with
// Error('Collected formula').
//
// The pass runs after every call and walks every formula, so it builds no
// list per formula: with thousands of messages it took 25 ms a pass, most
// of it making lists (array spreads are slow under lockdown), and its
// garbage and cache traffic slowed an agent measured in the same process.
import type { Formula, Kernel } from './kernel.js';

/** Calls `visit` with each id `formula` depends on. */
const forEachDependency = (formula: Formula, visit: (id: string) => void) => {
  switch (formula.type) {
    case 'host':
    case 'guest':
      visit(formula.handle);
      visit(formula.hostHandle);
      for (const id of Object.values(formula.specials)) visit(id);
      formula.store.forEachId(visit);
      formula.mailbox.forEachId(visit);
      return;
    case 'directory':
      formula.store.forEachId(visit);
      return;
    case 'handle':
    case 'mail-hub':
      visit(formula.agent);
      return;
    case 'marshal':
      formula.slots.forEach(id => visit(id));
      return;
    case 'make-unconfined':
      visit(formula.worker);
      visit(formula.powers);
      return;
    case 'eval':
      visit(formula.worker);
      formula.values.forEach(id => visit(id));
      return;
    default:
  }
};

/** @returns the ids it deleted */
export const collectGarbage = (
  kernel: Kernel,
  roots: Iterable<string>,
  onCollect: (id: string, formula: Formula) => void,
): string[] => {
  const reachable = new Set<string>();
  const pending: string[] = [];
  const reach = (id: string) => {
    if (!reachable.has(id)) {
      reachable.add(id);
      pending.push(id);
    }
  };
  for (const id of roots) reach(id);
  while (pending.length > 0) {
    const formula = kernel.formulas.get(pending.pop() as string);
    if (formula !== undefined) forEachDependency(formula, reach);
  }
  const collected: string[] = [];
  kernel.formulas.forEach((_, id) => {
    if (!reachable.has(id)) collected.push(id);
  });
  for (const id of collected) {
    const formula = kernel.formulas.get(id) as Formula;
    kernel.formulas.delete(id);
    kernel.forget(id);
    onCollect(id, formula);
  }
  return collected;
};
harden(collectGarbage);

// Full garbage collections for heap readings and for tests of what is
// released. CapTP with gcImports sends CTP_DROP from FinalizationRegistry
// callbacks, which run as tasks after a collection; the other end then
// lets go of what it exported, which only a later collection frees. So a
// reading collects, lets a few macrotasks pass, and collects again.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's gc(): the global one under --expose-gc, else one made at run time (undefined if V8 refuses). */
const findGc = (): (() => void) | undefined => {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed !== undefined) return exposed;
  try {
    // A context made after the flag is set has gc on its global.
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  }
};

const gc = findGc();

/** False when collections cannot be forced: readings are then rough. */
export const canCollectGarbage = gc !== undefined;

const nextMacrotask = () => new Promise(resolve => setImmediate(resolve));
const nextTimer = () => new Promise(resolve => setTimeout(resolve, 0));

/**
 * Collects, lets finalizers and the CapTP drops they send run, and again,
 * a few times over: a drop can free a presence whose own drop frees more.
 */
export const releaseGarbage = async (rounds = 3) => {
  for (let round = 0; round < rounds; round += 1) {
    gc?.();
    for (let turn = 0; turn < 5; turn += 1) {
      await nextMacrotask();
      await nextTimer();
    }
  }
  gc?.();
};

/** The process's used heap, in bytes, after releaseGarbage(). */
export const settledHeapUsed = async () => {
  await releaseGarbage();
  return process.memoryUsage().heapUsed;
};

// Telling a tool that fae gave up on one of its calls. A tool offers
// cancellation by having a `cancel` method (CancellableFaeToolInterface in
// the tool kit): fae then passes each call a fresh, unguessable id as
// execute's second argument and, when it stops waiting (the call timed
// out, or its turn was cancelled), calls cancel with that id. Only fae
// knows the id, so holding the tool does not let anyone else stop fae's
// calls. A tool without `cancel` is called as before, with one argument:
// an exo's guard refuses a second one.
import { randomUUID } from 'node:crypto';
import { E } from '@endo/far';
import type { FaeToolMethods, Ref } from '../daemon/endo-types.js';
import { callNear } from '../daemon/near-call.js';
import { ownExecuteOf } from './built-ins/built-in-tool.js';

type Tool = Ref<FaeToolMethods>;
type Args = Readonly<Record<string, unknown>>;

/**
 * Whether each tool offers cancellation, asked once per tool object (the
 * answer cannot change) and forgotten with the tool.
 */
const offered = new WeakMap<object, Promise<boolean>>();

/** Whether `tool` has a `cancel` method; false for anything that cannot say. */
export const offersCancellation = (tool: Tool): Promise<boolean> => {
  let known = offered.get(tool);
  if (known === undefined) {
    // Every exo and Far object answers __getMethodNames__.
    known = E(tool as Required<FaeToolMethods>)
      .__getMethodNames__()
      .then(
        names => names.includes('cancel'),
        () => false,
      );
    offered.set(tool, known);
  }
  return known;
};
harden(offersCancellation);

/** Calls `tool` with `callId` if it offers cancellation, without otherwise. */
export const executeWithCallId = async (tool: Tool, args: Args, callId: string): Promise<unknown> => {
  // A built-in runs its own execute (built-in-tool.ts); it cancels nothing.
  const own = ownExecuteOf(tool);
  if (own !== undefined) return own(args);
  // Another exo of fae's own is called at once (near-call.ts), anything else by E().
  return callNear(tool, 'execute', (await offersCancellation(tool)) ? [args, callId] : [args]);
};
harden(executeWithCallId);

/** Tells `tool` to stop the call `callId`, if it offers cancellation; never rejects. */
export const cancelCall = async (tool: Tool, callId: string): Promise<void> => {
  try {
    if (await offersCancellation(tool)) await E(tool as Required<FaeToolMethods>).cancel(callId);
  } catch {
    // Best effort: the call is given up on either way.
  }
};
harden(cancelCall);

/** A new call id: random, so that no one else can name fae's calls. */
export const makeToolCallId = (): string => `call-${randomUUID()}`;
harden(makeToolCallId);

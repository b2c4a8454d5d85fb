// The interface every fae tool capability answers: its schema for the model,
// an execute method, and a help text. Tool authors import it to guard their
// exos (`makeExo('MyTool', FaeToolInterface, { ... })`).
import { M } from '@endo/patterns';

export const FaeToolInterface = M.interface('FaeTool', {
  schema: M.call().returns(M.record()),
  execute: M.call(M.record()).returns(M.promise()),
  help: M.call().returns(M.string()),
});
harden(FaeToolInterface);

/**
 * A FaeTool that can stop a call it is running. fae sees the `cancel`
 * method, passes every call an id of its own as execute's second argument,
 * and calls `cancel(callId)` when it stops waiting for that call (it timed
 * out, or fae's turn was cancelled). Cancelling a call that is over, or an
 * id the tool does not know, does nothing.
 */
export const CancellableFaeToolInterface = M.interface('CancellableFaeTool', {
  schema: M.call().returns(M.record()),
  execute: M.call(M.record()).optional(M.string()).returns(M.promise()),
  cancel: M.call(M.string()).returns(M.undefined()),
  help: M.call().returns(M.string()),
});
harden(CancellableFaeToolInterface);

/**
 * A cancellable FaeTool that can also say, without doing anything, whether
 * it would refuse a call's arguments: fae calls `check(args)` before it asks
 * its host to approve the call, so the host is never asked about a call that
 * cannot run (out of its bounds, or revoked). It rejects with the reason.
 */
export const CheckingFaeToolInterface = M.interface('CheckingFaeTool', {
  schema: M.call().returns(M.record()),
  execute: M.call(M.record()).optional(M.string()).returns(M.promise()),
  check: M.call(M.record()).returns(M.promise()),
  cancel: M.call(M.string()).returns(M.undefined()),
  help: M.call().returns(M.string()),
});
harden(CheckingFaeToolInterface);

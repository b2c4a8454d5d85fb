// Calling fae's own objects at once. E() on an object of this vat only
// defers the call to a later turn, and costs a proxy, a hardened handler
// and a promise chain each time (some 20 µs): on the calls that pass
// through fae's own layers (a built-in tool, the built-ins' sealed view of
// the powers, the view that redacts outgoing mail), that was a good part
// of a turn. An object that has the method as a function (a Far or exo
// made in this vat) is called at once; a presence of another vat, which
// has none, or a promise for one, is sent the call as E() would send it,
// without E()'s proxy (sendTo). Either way the answer is a promise, and a
// throw is its rejection.
import { HandledPromise } from '@endo/eventual-send';

// `any`: the method is looked up by name on a local object or a remote one.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/**
 * `E(target)[method](...args)`: the same eventual send, without the proxy
 * and the hardened handler and method E() makes for every call (a few µs
 * each, on every daemon call fae makes).
 */
export const sendTo = (target: unknown, method: string, args: readonly unknown[]): Promise<Any> =>
  HandledPromise.applyMethod(target, method, args as unknown[]);
harden(sendTo);

/** Calls `method` of `target` with `args`: at once when `target` is an object here with that method, else eventually (sendTo). */
export const callNear = async (target: unknown, method: string, args: readonly unknown[]): Promise<Any> => {
  const own: unknown = target !== null && typeof target === 'object' ? (target as Record<string, unknown>)[method] : undefined;
  return typeof own === 'function' ? own.apply(target, args) : sendTo(target, method, args);
};
harden(callNear);

// A promise and its resolve, for a module's own bookkeeping. @endo/promise-
// kit's kit is hardened and releases its executor, so that it can be handed
// to anyone: some 7 µs each, and fae's inbox and conversation lines made
// several for every message. A kit that never leaves the module that made
// it (only its promise may, as any promise can) needs neither.

export interface LocalKit<T> {
  readonly promise: Promise<T>;
  readonly resolve: (value: T) => void;
}

export const makeLocalKit = <T>(): LocalKit<T> => {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>(settle => {
    resolve = settle;
  });
  return { promise, resolve };
};
harden(makeLocalKit);

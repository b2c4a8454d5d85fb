// A capability that is not a FaeTool, of many methods (issue 38's tests
// and bench): m1 … mN, each taking a string and saying which it is.
import { makeExo } from '@endo/exo';
import { M } from '@endo/patterns';

export const makeWideCapability = (count: number) => {
  const names = Array.from({ length: count }, (_, i) => `m${i + 1}`);
  const guards = Object.fromEntries(names.map(name => [name, M.call(M.string()).returns(M.string())]));
  const methods = Object.fromEntries(names.map(name => [name, (text: string) => `${name} got ${text}`]));
  return makeExo('Wide', M.interface('Wide', guards), methods);
};

// A capability that is not a FaeTool, of many methods (issue 38's tests
// and bench): m<first> … m<first + count - 1>, each taking a string and
// saying which it is. A guard holds at most 80 methods (a record's limit).
import { makeExo } from '@endo/exo';
import { M } from '@endo/patterns';

export const makeWideCapability = (count: number, first = 1) => {
  const names = Array.from({ length: count }, (_, i) => `m${first + i}`);
  const guards = Object.fromEntries(names.map(name => [name, M.call(M.string()).returns(M.string())]));
  const methods = Object.fromEntries(names.map(name => [name, (text: string) => `${name} got ${text}`]));
  return makeExo('Wide', M.interface('Wide', guards), methods);
};

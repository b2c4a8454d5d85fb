// A set of message numbers kept as sorted, disjoint ranges. An inbox's
// numbers are counted from 0n and never reused, and fae takes up nearly
// every one of them in order, so the numbers it has seen form a few long
// runs: the set stays a handful of ranges however much mail passes, where
// a Set of numbers would grow with every message.

interface Range {
  low: bigint;
  high: bigint;
}

export interface NumberSet {
  readonly has: (number: bigint) => boolean;
  readonly add: (number: bigint) => void;
  /** How many ranges the set is made of (for tests and status). */
  readonly ranges: () => number;
}

export const makeNumberSet = (): NumberSet => {
  const ranges: Range[] = [];

  /** The index of the first range whose high end is at or above `number`. */
  const firstReaching = (number: bigint) => {
    let low = 0;
    let high = ranges.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (ranges[middle].high < number) low = middle + 1;
      else high = middle;
    }
    return low;
  };

  const has = (number: bigint) => {
    const range = ranges[firstReaching(number)];
    return range !== undefined && range.low <= number;
  };

  const add = (number: bigint) => {
    const last = ranges.at(-1);
    // The usual case: the next number in order.
    if (last !== undefined && last.high + 1n === number) {
      last.high = number;
      return;
    }
    const at = firstReaching(number);
    const next = ranges[at];
    if (next !== undefined && next.low <= number) return;
    const previous = at > 0 ? ranges[at - 1] : undefined;
    const joinsPrevious = previous !== undefined && previous.high + 1n === number;
    const joinsNext = next !== undefined && next.low - 1n === number;
    if (joinsPrevious && joinsNext) {
      previous.high = next.high;
      ranges.splice(at, 1);
    } else if (joinsPrevious) {
      previous.high = number;
    } else if (joinsNext) {
      next.low = number;
    } else {
      ranges.splice(at, 0, { low: number, high: number });
    }
  };

  return harden({ has, add, ranges: () => ranges.length });
};
harden(makeNumberSet);

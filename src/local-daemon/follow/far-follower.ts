// How a follower leaves the daemon: the one place that knows the wire form
// of every follow* method's result. February and May hand out an exo
// AsyncIterator (spec §5.6); August a syn/ack PassableReader
// (stream-reader-exo.ts).
import { makeExo } from '@endo/exo';
import { AsyncIteratorInterface } from '../interfaces.js';
import type { Instrument } from '../kernel/instrument.js';
import { makeFollower, type Follower, type FollowSource, type Track } from './follow.js';
import { makeStreamReader } from './stream-reader-exo.js';
import type { Dialect } from '../../daemon/dialect.js';

export const makeIteratorRef = (follower: Follower, instrument: Instrument): object =>
  makeExo('AsyncIterator', AsyncIteratorInterface, {
    next: instrument('next', () => follower.next(), false),
    return: instrument('return', (value?: unknown) => follower.return(value), false),
    throw: instrument('throw', (error?: unknown) => follower.throw(error), false),
  });
harden(makeIteratorRef);

/** Turns any follow source into what a follow* method returns. */
export type FollowOut = <T>(source: FollowSource<T>) => object;

export const makeFollowOut = (instrument: Instrument, track: Track, dialect: Dialect): FollowOut => {
  const wrap = dialect === 'aug' ? makeStreamReader : makeIteratorRef;
  return <T>(source: FollowSource<T>) => wrap(makeFollower(source, track), instrument);
};
harden(makeFollowOut);

// One piece of work at a time per key, in the order it was asked for;
// work under other keys goes on meanwhile. Used for a conversation's
// store operations (store-sync.ts), its turns, and the placing of a
// correspondent's messages in line (turn-lines.ts). A key with nothing
// queued takes no memory.
import { REPORTED_ALREADY, inBackground } from '../background.js';

export const makeKeyedQueue = () => {
  /** The last work queued under each key, settled or not. */
  const tails = new Map<string, Promise<void>>();
  return harden({
    /**
     * Runs `work` once every earlier work under `key` has settled
     * (fulfilled or rejected); settles as `work` does.
     */
    run: <T>(key: string, work: () => Promise<T>): Promise<T> => {
      const done = (tails.get(key) ?? Promise.resolve()).then(work);
      const tail = done.then(
        () => {},
        () => {},
      );
      tails.set(key, tail);
      // tail only resolves.
      inBackground(
        tail.then(() => {
          if (tails.get(key) === tail) tails.delete(key);
        }),
        REPORTED_ALREADY,
      );
      return done;
    },
    /** Whether work under `key` is queued or under way. */
    has: (key: string) => tails.has(key),
  });
};
harden(makeKeyedQueue);
export type KeyedQueue = ReturnType<typeof makeKeyedQueue>;

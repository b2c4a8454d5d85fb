// A correspondent of fae other than its host: a second guest of the host
// who knows fae (fae has no name for it), and the texts of what fae sends
// it, one after the other.
import { E } from '@endo/far';
import type { Far } from './fae-harness.js';
import { fromSelf, messageText, nextMessage } from './daemon.js';

export const makeCorrespondent = async (host: Far, name = 'alice') => {
  const guest: Far = await E(host).provideGuest(name, { introducedNames: { fae: 'fae' }, agentName: `${name}-agent` });
  const notOwn = fromSelf(guest);
  let lastSeen = -1n;
  return {
    guest,
    /** Mails fae `text`. */
    say: async (text: string) => E(guest).send('fae', [text], [], []),
    /** The text of the next message fae sends it after the last one returned. */
    next: async (timeoutMs = 20_000): Promise<string> => {
      const message = await nextMessage(guest, async record => record.number > lastSeen && (await notOwn(record)), timeoutMs);
      lastSeen = message.number;
      return messageText(message);
    },
  };
};

// A long conversation carried by its window: one correspondent writes
// 1,300 messages to one fae whose model writes no summary (the bench
// model answers every request with a tool call), so compaction keeps
// failing and each request is cut to a window of the conversation, some
// hundreds of messages long. Prints the median turn per 100 messages, and
// that of the last 100 against messages 201 to 300 (before the window is
// needed): a window cut and measured afresh at every request, or hardened
// there, shows as a turn that grows with the conversation.
import { startCountedFae } from './counted-fae.js';
import { median } from './side-by-side.js';

const MESSAGES = 1300;
const BLOCK = 100;

export const benchWindowed = async () => {
  const fae = await startCountedFae(0, {});
  const medians: number[] = [];
  for (let block = 0; block < MESSAGES / BLOCK; block += 1) {
    const turns: number[] = [];
    // One at a time, as someone chatting would.
    for (let i = 0; i < BLOCK; i += 1) turns.push((await fae.message()).turnMs);
    medians.push(median(turns));
  }
  await fae.stop();
  console.log(`windowed: median turn (ms) per ${BLOCK} messages, up to ${MESSAGES}: ${medians.map(ms => ms.toFixed(2)).join(' ')}`);
  const before = medians[2];
  const last = medians[medians.length - 1];
  console.log(`windowed: messages ${MESSAGES - BLOCK + 1}–${MESSAGES} against 201–300: ${last.toFixed(2)} ms against ${before.toFixed(2)} ms (${(last / before).toFixed(2)} times)`);
};

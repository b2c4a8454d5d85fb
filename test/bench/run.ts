// Benchmarks: `npm run bench [-- name…]`. They print numbers; they assert
// nothing. Each module below is one bench; with names given, only those
// run. Daemon round trips are fae's main cost, so the benches run against
// the local daemon with a fixed latency per call.
import { run as tools } from './tools.js';
import { run as registry } from './registry.js';
import { benchConversations as conversations } from './conversations.js';
import { benchCorrespondents as correspondents } from './correspondents.js';
import { benchUpstream as upstream } from './upstream.js';
import { benchPrompt as prompt } from './prompt.js';
import { benchStreaming as streaming } from './streaming.js';
import { benchWindowed as windowed } from './windowed.js';
import { benchCapabilities as capabilities } from './capabilities.js';

const BENCHES: readonly (readonly [string, () => Promise<void>])[] = [
  ['tools', tools],
  ['registry', registry],
  ['conversations', conversations],
  ['correspondents', correspondents],
  ['windowed', windowed],
  ['prompt', prompt],
  ['capabilities', capabilities],
  ['streaming', streaming],
  ['upstream', upstream],
];

const main = async () => {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter(name => !BENCHES.some(([known]) => known === name));
  if (unknown.length > 0) {
    throw Error(`Unknown bench ${JSON.stringify(unknown)}; the benches are ${BENCHES.map(([name]) => name).join(', ')}`);
  }
  for (const [name, bench] of BENCHES) {
    if (wanted.length > 0 && !wanted.includes(name)) continue;
    console.log(`\n## ${name}`);
    // One bench at a time: they would skew each other's timings.
    await bench();
  }
};

main().then(
  () => process.exit(0),
  error => {
    console.error(error);
    process.exit(1);
  },
);

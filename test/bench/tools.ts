// Discovery by listing (discoverTools on its own) and concurrent tool
// calls, against the local daemon with a fixed latency per call.
import { E } from '@endo/far';
import { makeLocalDaemon } from '../../src/local-daemon/index.js';
import { discoverTools } from '../../src/toolbox/tools.js';
import { startFaeInDaemon } from '../support/fae-harness.js';
import { makeScriptedProvider } from '../support/scripted-provider.js';
import { makeSequenceTools, makeShippedTool, makeToolCaplet } from '../support/tool-caplets.js';

const LATENCY_MS = 20;

const time = async <T>(work: () => Promise<T>) => {
  const start = performance.now();
  const result = await work();
  return { ms: performance.now() - start, result };
};

const benchDiscovery = async (toolCount: number) => {
  const daemon = makeLocalDaemon();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const host: any = await daemon.host;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const guest: any = await E(host).provideGuest('bench', { agentName: 'bench-agent' });
  await E(guest).makeDirectory('tools');
  await Promise.all(
    Array.from({ length: toolCount }, (_, i) => makeShippedTool(host, 'greet', `greet-${i}`)),
  );
  await Promise.all(
    Array.from({ length: toolCount }, (_, i) =>
      E(host).copy([`greet-${i}`], ['bench-agent', 'tools', `greet-${i}`]),
    ),
  );
  const listed = await E(guest).list('tools');
  daemon.setLatency(LATENCY_MS);
  daemon.resetCallCounts();
  const { ms, result } = await time(() => discoverTools(guest, new Map()));
  const calls = Object.values(daemon.callCounts()).reduce((a, b) => a + b, 0);
  console.log(
    `discover ${String(listed.length).padStart(2)} tools: ${ms.toFixed(0).padStart(4)} ms (${(ms / LATENCY_MS).toFixed(1)} round trips of ${LATENCY_MS} ms), ${calls} daemon calls (every tool is a copy of greet, so ${result.schemas.length} distinct name)`,
  );
  await daemon.stop();
};

const benchParallelTools = async (parallel: boolean) => {
  const { first, second } = makeSequenceTools(300);
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'first', arguments: {} }, { name: 'second', arguments: {} }] },
    { text: 'done' },
  ]);
  const { host, nextFromFae, daemon } = await startFaeInDaemon({
    provider: llm.provider,
    env: { FAE_PARALLEL_TOOLS: parallel ? '1' : '0' },
    introducedNames: { first: 'first', second: 'second' },
    prepare: async (_h, d) => {
      await makeToolCaplet(d, 'first', () => first);
      await makeToolCaplet(d, 'second', () => second);
    },
  });
  await nextFromFae();
  const { ms } = await time(async () => {
    await E(host).send('fae', ['go'], [], []);
    await nextFromFae();
  });
  console.log(`two 300 ms tools, ${parallel ? 'concurrent' : 'one by one'}: ${ms.toFixed(0)} ms for the whole message`);
  await daemon.stop();
};

export const run = async () => {
  for (const count of [1, 5, 20]) {
    // One case after the other: they share the machine's timers.
     
    await benchDiscovery(count);
  }
  await benchParallelTools(true);
  await benchParallelTools(false);
};

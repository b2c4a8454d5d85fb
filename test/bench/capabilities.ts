// A small prompt however many tools (issue 38): fae adopts two capabilities
// of 50 methods each (not FaeTools: their tools come from their interface
// guards; a guard holds at most 80), then a message asks for the 80th. Measured: the first request's tool
// definitions (JSON characters and estimated tokens) with the default
// FAE_TOOL_TOKENS and with every tool offered, and the model calls the
// turn takes to reach the 80th method. Target: within 12 KB of JSON.
import { E } from '@endo/far';
import { estimateSchemas } from '../../src/conversations/requests/tokens.js';
import { startFaeInDaemon } from '../support/fae-harness.js';
import { lastMessageNumber, makeScriptedProvider, type ScriptedReply } from '../support/scripted-provider.js';
import { messageText } from '../support/daemon.js';
import { makeToolCaplet } from '../support/tool-caplets.js';
import { makeWideCapability } from '../support/wide-capability.js';
import { stopQuietly } from './counted-fae.js';

const METHODS = 100;
const HALF = METHODS / 2;
const TARGET = 80;
const TARGET_CHARS = 12_000;


/** The 80th method reached as a model would: offered, called at once; else found, then called. */
const reachTarget: ScriptedReply = request => {
  const name = `wide-b__m${TARGET}`;
  const lastTool = request.messages.at(-1);
  if (lastTool?.role === 'tool' && lastTool.content.includes(`m${TARGET} got`)) return { text: lastTool.content };
  if (request.toolNames.includes(name)) return { toolCalls: [{ name, arguments: { arg1: 'hi' } }] };
  if (lastTool?.role === 'tool') return { toolCalls: [{ name: 'callTool', arguments: { name, arguments: { arg1: 'hi' } } }] };
  return { toolCalls: [{ name: 'findTools', arguments: { query: `m${TARGET}` } }] };
};

/** One run: the first request of the asking turn, and the model calls it took. */
const measure = async (env: Record<string, string>) => {
  const llm = makeScriptedProvider([
    request => ({
      toolCalls: ['wide-a', 'wide-b'].map(name => ({ name: 'adoptTool', arguments: { messageNumber: lastMessageNumber(request), edgeName: name, toolName: name } })),
    }),
    { text: 'adopted' },
    ...Array.from({ length: 5 }, () => reachTarget),
  ]);
  const started = await startFaeInDaemon({
    provider: llm.provider,
    env: { FAE_APPROVE: 'readonly:wide-a,readonly:wide-b', ...env },
    prepare: async (_host, daemon) => {
      await makeToolCaplet(daemon, 'wide-a', () => makeWideCapability(HALF));
      await makeToolCaplet(daemon, 'wide-b', () => makeWideCapability(HALF, HALF + 1));
    },
  });
  try {
    await started.nextFromFae(); // ready
    await E(started.host).send('fae', ['Adopt ', ' and ', ''], ['wide-a', 'wide-b'], ['wide-a', 'wide-b']);
    await started.nextFromFae();
    const before = llm.requests.length;
    await E(started.host).send('fae', [`use m${TARGET}`], [], []);
    const answer = messageText(await started.nextFromFae());
    if (!answer.includes(`m${TARGET} got hi`)) throw Error(`the model did not reach m${TARGET}: ${answer}`);
    const first = llm.requests[before];
    return { chars: JSON.stringify(first.tools).length, tokens: estimateSchemas(first.tools), tools: first.tools.length, calls: llm.requests.length - before - 1 };
  } finally {
    await stopQuietly(started.daemon);
  }
};

export const benchCapabilities = async () => {
  const budgeted = await measure({});
  const everything = await measure({ FAE_TOOL_TOKENS: '1000000' });
  const line = (label: string, { chars, tokens, tools, calls }: Awaited<ReturnType<typeof measure>>) =>
    console.log(`${label}: ${tools} tools offered, ${chars.toLocaleString('en-US')} characters (~${tokens.toLocaleString('en-US')} tokens); ${calls} model call(s) with a tool to reach m${TARGET}`);
  console.log(`built-ins + two capabilities of ${HALF} methods each, reaching the ${TARGET}th method:`);
  line('  FAE_TOOL_TOKENS default', budgeted);
  line('  every tool offered     ', everything);
  console.log(`  target: within ${TARGET_CHARS.toLocaleString('en-US')} characters: ${budgeted.chars <= TARGET_CHARS ? 'met' : 'MISSED'}`);
};

// What the MCP bridge's whole-loop tests start from: fae in a local daemon
// with a model that does what each message asks, real MCP servers from
// node_modules (spawned over stdio) or an in-process streamable-HTTP one,
// and the bridge's log lines.
import { fileURLToPath } from 'node:url';
import { E } from '@endo/far';
import { startReadyFae } from './fae-harness.js';
import { lastUserWords, makeScriptedProvider, type ScriptedReply } from './scripted-provider.js';
import { messageText } from './daemon.js';

/** The entry script of an MCP server package installed as a devDependency. */
export const serverScript = (pkg: 'server-everything' | 'server-filesystem' | 'server-memory') =>
  fileURLToPath(new URL(`../../../node_modules/@modelcontextprotocol/${pkg}/dist/index.js`, import.meta.url));

/** The settings of a stdio server run by this very node. */
export const stdioServer = (name: string, script: string, args: readonly string[] = []) => ({
  FAE_MCP_NAME: name,
  FAE_MCP_COMMAND: process.execPath,
  FAE_MCP_ARGS: JSON.stringify([script, ...args]),
});

/**
 * A model that calls what the message asks, given as JSON
 * (`[{"name":"echo","arguments":{…}}]`), then says every result it got:
 * "results: <first> | <second>". Mail that is not JSON has tools attached:
 * the model adopts each under its edge name.
 */
const callAsAsked: ScriptedReply = request => {
  const last = request.messages.at(-1);
  if (last?.role === 'tool') {
    const results = [];
    for (let i = request.messages.length - 1; request.messages[i].role === 'tool'; i -= 1) results.unshift(request.messages[i].content);
    return { text: `results: ${results.join(' | ')}` };
  }
  const words = lastUserWords(request.messages);
  if (words.startsWith('[')) return { toolCalls: JSON.parse(words) };
  // Anything else is mail with tools attached: adopt each under its edge name.
  const heading = request.messages.filter(m => m.role === 'user').at(-1)?.content ?? '';
  const number = Number(/^Message #(\d+)/.exec(heading)?.[1]);
  const edges = [...words.matchAll(/@([a-z0-9-]+)/g)].map(match => match[1]);
  return { toolCalls: edges.map(edgeName => ({ name: 'adoptTool', arguments: { messageNumber: number, edgeName, toolName: edgeName } })) };
};

/** Captures the bridges' log lines (`[mcp <name>] …`) while a test file runs. */
export const captureBridgeLogs = () => {
  const lines: string[] = [];
  const previous = globalThis.console;
  globalThis.console = {
    ...previous,
    log: (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].startsWith('[mcp ')) lines.push(args[0]);
      else previous.log(...args);
    },
  };
  return lines;
};

type Teardown = Parameters<typeof startReadyFae>[0];

/** fae, ready, whose model calls tools as each message says. */
export const startFaeCallingAsAsked = async (t: Teardown, env: Record<string, string> = {}) => {
  const llm = makeScriptedProvider(Array.from({ length: 100 }, () => callAsAsked));
  const started = await startReadyFae(t, { provider: llm.provider, env });
  /** Asks fae to make these calls; resolves to its answer. */
  const call = (...calls: { name: string; arguments?: Record<string, unknown> }[]) => started.ask(JSON.stringify(calls));
  /** The host puts its capabilities (paths in its inventory) in fae's tools/, as fae's adoptTool would. */
  const give = (...paths: (readonly string[])[]) =>
    Promise.all(paths.map(path => E(started.host).copy([...path], ['profile-for-fae', 'tools', path[path.length - 1]])));
  /** Mails fae a text with capabilities attached (edge names, host paths); resolves to its answer. */
  const mail = async (text: string, edgeNames: readonly string[], paths: readonly (readonly string[])[]) => {
    await E(started.host).send('fae', [text], [...edgeNames], paths.map(p => [...p]));
    return messageText(await started.nextFromFae());
  };
  return { ...started, llm, call, give, mail };
};

// fae follows its tools/ directory: tools added, replaced or removed while
// it runs are offered (or no longer offered) at the next model call,
// without listing tools/ or reading the other tools again.
import test from 'ava';
import { E } from '@endo/far';
import type { Provider } from '../providers/types.js';
import { startFaeInDaemon } from './support/fae-harness.js';
import { makeScriptedProvider } from './support/scripted-provider.js';
import { dialect, messageText } from './support/daemon.js';
import { installTool, waitForLog } from './support/registry-tools.js';
import { makeShippedTool } from './support/tool-caplets.js';

const AGENT = 'profile-for-fae';

/** fae with a scripted model, started and following tools/. */
const start = async (llm: ReturnType<typeof makeScriptedProvider>, provider: Provider = llm.provider) => {
  const started = await startFaeInDaemon({ provider });
  await started.nextFromFae();
  await waitForLog(started.logs, ['tools-following']);
  return started;
};

test('a tool added to tools/ is offered at the next message, without listing tools/', async t => {
  const llm = makeScriptedProvider([{ text: 'ok' }]);
  const { daemon, host, logs, nextFromFae } = await start(llm);
  await installTool(daemon, host, AGENT, 'echo');
  await waitForLog(logs, ['tool-added', 'tools/echo']);
  daemon.resetCallCounts();
  await E(host).send('fae', ['hello'], [], []);
  t.is(messageText(await nextFromFae()), 'ok');
  t.true(llm.requests[0].toolNames.includes('echo'));
  t.is(daemon.callCounts().list ?? 0, 0, 'tools/ was not listed');
  t.is(daemon.callCounts().lookup ?? 0, 0, 'no tool was read again');
  t.false(logs.some(line => line.includes('tools-listed')));
  await daemon.stop();
});

test('a tool replaced under the same pet name is offered under its new schema', async t => {
  const llm = makeScriptedProvider([{ text: 'one' }, { text: 'two' }]);
  const { daemon, host, logs, nextFromFae } = await start(llm);
  await installTool(daemon, host, AGENT, 'first', 'slot');
  await waitForLog(logs, ['tool-added', 'tools/slot']);
  await E(host).send('fae', ['a'], [], []);
  await nextFromFae();
  const before = logs.length;
  await installTool(daemon, host, AGENT, 'second', 'slot');
  // Overwriting a name shows as a removal, then an addition (looked for
  // once the removal is logged: it may not be yet).
  const removal = await waitForLog(logs, ['tool-removed', 'tools/slot'], { from: before });
  await waitForLog(logs, ['tool-added', 'tools/slot'], { from: logs.indexOf(removal, before) });
  await E(host).send('fae', ['b'], [], []);
  await nextFromFae();
  t.true(llm.requests[0].toolNames.includes('first'));
  t.false(llm.requests[1].toolNames.includes('first'));
  t.true(llm.requests[1].toolNames.includes('second'));
  await daemon.stop();
});

test('a removed tool is no longer offered', async t => {
  const llm = makeScriptedProvider([{ text: 'one' }, { text: 'two' }]);
  const { daemon, host, logs, nextFromFae } = await start(llm);
  await installTool(daemon, host, AGENT, 'echo');
  await waitForLog(logs, ['tool-added', 'tools/echo']);
  await E(host).send('fae', ['a'], [], []);
  await nextFromFae();
  await E(host).remove(AGENT, 'tools', 'echo');
  await waitForLog(logs, ['tool-removed', 'tools/echo']);
  await E(host).send('fae', ['b'], [], []);
  await nextFromFae();
  t.true(llm.requests[0].toolNames.includes('echo'));
  t.false(llm.requests[1].toolNames.includes('echo'));
  await daemon.stop();
});

test('a tool removed while the model thinks fails cleanly when called', async t => {
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'echo', arguments: {} }] },
    request => ({ text: `said: ${request.messages.at(-1)?.content}` }),
  ]);
  // Filled in once fae is started; the model is first asked after that.
  // `any`: the host is a remote reference.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const fae: { logs: string[]; host?: any } = { logs: [] };
  let calls = 0;
  const provider: Provider = {
    ...llm.provider,
    chat: async (messages, tools) => {
      calls += 1;
      if (calls === 1) {
        // The model was offered echo; it goes before the model answers.
        await E(fae.host).remove(AGENT, 'tools', 'echo');
        await waitForLog(fae.logs, ['tool-removed', 'tools/echo']);
      }
      return llm.provider.chat(messages, tools);
    },
  };
  const started = await startFaeInDaemon({ provider });
  const { daemon, nextFromFae, logs } = started;
  fae.logs = logs;
  fae.host = started.host;
  await nextFromFae();
  await waitForLog(logs, ['tools-following']);
  await installTool(daemon, started.host, AGENT, 'echo');
  await waitForLog(logs, ['tool-added', 'tools/echo']);
  await E(started.host).send('fae', ['use echo'], [], []);
  const answer = messageText(await nextFromFae());
  t.regex(answer, /The tool \\"echo\\" \(tools\/echo\) was removed while you were working/);
  t.true(llm.requests[0].toolNames.includes('echo'));
  t.false(llm.requests[1].toolNames.includes('echo'));
  await daemon.stop();
});

test('an adopted tool is usable in the same turn, reading only that tool', async t => {
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'adoptTool', arguments: { messageNumber: 1, edgeName: 'greeter', toolName: 'greet-tool' } }] },
    { toolCalls: [{ name: 'greet', arguments: { name: 'Ada', language: 'french' } }] },
    request => ({ text: `The tool said: ${request.messages.at(-1)?.content}` }),
  ]);
  const { daemon, host, logs, nextFromFae } = await start(llm);
  await Promise.all(['a', 'b', 'c'].map(name => installTool(daemon, host, AGENT, name)));
  await waitForLog(logs, ['tool-added', 'tools/c']);
  await makeShippedTool(host, 'greet', 'greet-tool');
  daemon.resetCallCounts();
  await E(host).send('fae', ['Here is ', ' for you.'], ['greeter'], ['greet-tool']);
  t.is(messageText(await nextFromFae()), 'The tool said: Bonjour, Ada!');
  t.true(llm.requests[1].toolNames.includes('greet'));
  // One lookup: the adopted tool. Re-reading tools/ would look up all four.
  t.is(daemon.callCounts().lookup, 1);
  // Which names tools/ holds came from the registry: nothing was listed,
  // and none of the four tools already there was identified: only the
  // attachment (once as the turn starts, to know who gave it: given-by.ts)
  // and the adopted name, and what the turn's view identifies to judge the
  // adopt (the paths' prefixes and the sealed conversations, usage,
  // budget, LLM settings, approval policy and grants, and fae's records of model names, approved calls, who gave what and the host's names for its correspondents, each time; fae's
  // own agent, handle, host, mail and, on the newer daemons, network,
  // once a turn: path-checks.ts).
  t.is(daemon.callCounts().list ?? 0, 0);
  t.is(daemon.callCounts().identify, dialect === 'feb' ? 31 : 32);
  t.false(logs.some(line => line.includes('tools-listed')));
  await daemon.stop();
});

test('adoptTool sees from the registry that a mailed tool is installed already, or that its name is taken', async t => {
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'adoptTool', arguments: { messageNumber: 1, edgeName: 'greeter', toolName: 'a' } }] },
    { toolCalls: [{ name: 'adoptTool', arguments: { messageNumber: 1, edgeName: 'greeter', toolName: 'greet-tool' } }] },
    { toolCalls: [{ name: 'adoptTool', arguments: { messageNumber: 1, edgeName: 'greeter', toolName: 'other' } }] },
    request => ({ text: `last: ${request.messages.at(-1)?.content}` }),
  ]);
  const { daemon, host, logs, nextFromFae } = await start(llm);
  await installTool(daemon, host, AGENT, 'a');
  await waitForLog(logs, ['tool-added', 'tools/a']);
  await makeShippedTool(host, 'greet', 'greet-tool');
  daemon.resetCallCounts();
  await E(host).send('fae', ['Here is ', ' for you.'], ['greeter'], ['greet-tool']);
  t.regex(messageText(await nextFromFae()), /already installed as tools\/greet-tool/);
  t.regex(llm.requests[1].messages.at(-1)?.content ?? '', /tools\/a already holds another tool/);
  t.is(daemon.callCounts().list ?? 0, 0);
  await daemon.stop();
});

test('a tool the model moves out of tools/ is not offered at its next call', async t => {
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'move', arguments: { from: 'tools/echo', to: 'old-echo' } }] },
    { text: 'moved' },
  ]);
  const { daemon, host, logs, nextFromFae } = await start(llm);
  await installTool(daemon, host, AGENT, 'echo');
  await waitForLog(logs, ['tool-added', 'tools/echo']);
  await E(host).send('fae', ['put echo away'], [], []);
  t.is(messageText(await nextFromFae()), 'moved');
  t.true(llm.requests[0].toolNames.includes('echo'));
  t.false(llm.requests[1].toolNames.includes('echo'));
  await daemon.stop();
});

test('when tools/ is replaced wholesale, fae follows the new directory', async t => {
  const llm = makeScriptedProvider([{ text: 'one' }, { text: 'two' }]);
  const { daemon, host, logs, nextFromFae } = await start(llm);
  await installTool(daemon, host, AGENT, 'old');
  await waitForLog(logs, ['tool-added', 'tools/old']);
  await E(host).send('fae', ['a'], [], []);
  await nextFromFae();
  const mark = logs.length;
  // makeDirectory binds a new, empty directory over the old one.
  await E(host).makeDirectory([AGENT, 'tools']);
  await waitForLog(logs, ['tools-follow-restored'], { from: mark });
  await installTool(daemon, host, AGENT, 'new');
  await waitForLog(logs, ['tool-added', 'tools/new'], { from: mark });
  await E(host).send('fae', ['b'], [], []);
  await nextFromFae();
  t.true(llm.requests[0].toolNames.includes('old'));
  t.false(llm.requests[1].toolNames.includes('old'));
  t.true(llm.requests[1].toolNames.includes('new'));
  await daemon.stop();
});

test('FAE_TOOL_DISCOVERY=list lists tools/ at every step, as before', async t => {
  const llm = makeScriptedProvider([{ toolCalls: [{ name: 'list', arguments: {} }] }, { text: 'ok' }]);
  const { daemon, host, nextFromFae, logs } = await startFaeInDaemon({
    provider: llm.provider,
    env: { FAE_TOOL_DISCOVERY: 'list' },
  });
  await nextFromFae();
  await installTool(daemon, host, AGENT, 'echo');
  daemon.resetCallCounts();
  await E(host).send('fae', ['hello'], [], []);
  await nextFromFae();
  t.true(llm.requests[0].toolNames.includes('echo'));
  // At the start of the turn and after the round of tool calls, plus the model's own list.
  t.is(daemon.callCounts().list, 3);
  t.false(logs.some(line => line.includes('tools-following')));
  await daemon.stop();
});

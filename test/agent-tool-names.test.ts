// A mailed tool whose schema name is a built-in's (`list`, `reject`, …) is
// not silently unusable: it is offered as `tool_<name>` (or a further
// distinct name when that is taken too), calls under that name reach it,
// the built-in keeps its own name, and adoptTool tells the model which name
// the tool got.
import test from 'ava';
import { E } from '@endo/far';
import { startFaeInDaemon } from './support/fae-harness.js';
import { makeScriptedProvider, type RecordedRequest } from './support/scripted-provider.js';
import { messageText } from './support/daemon.js';
import { makeToolCaplet } from './support/tool-caplets.js';
import { makeFaeTool } from '../src/tool-kit/make-fae-tool.js';

/** A tool called `name` whose every call answers `answer`. */
const makeNamedTool = (name: string, answer: string) =>
  makeFaeTool({
    name,
    description: `Answers ${answer}.`,
    parameters: {},
    required: [],
    help: 'a test tool',
    execute: async () => answer,
  });

/** The results of the tool calls the model made last, by tool name. */
const lastResults = (request: RecordedRequest) => {
  const results: Record<string, string> = {};
  for (let i = request.messages.length - 1; request.messages[i].role === 'tool'; i -= 1) {
    const { name, content } = request.messages[i];
    results[name ?? '?'] = content;
  }
  return results;
};

for (const discovery of ['follow', 'list']) {
  test(`a mailed tool named like a built-in is adopted and called as tool_<name> (FAE_TOOL_DISCOVERY=${discovery})`, async t => {
    const llm = makeScriptedProvider([
      { toolCalls: [{ name: 'adoptTool', arguments: { messageNumber: 1, edgeName: 'shelves', toolName: 'shelf-list' } }] },
      { toolCalls: [{ name: 'tool_list', arguments: {} }, { name: 'list', arguments: {} }] },
      { text: 'done' },
    ]);
    const { host, daemon, nextFromFae } = await startFaeInDaemon({
      provider: llm.provider,
      env: { FAE_TOOL_DISCOVERY: discovery },
    });
    await nextFromFae();
    await makeToolCaplet(daemon, 'shelf-tool', () => makeNamedTool('list', 'shelves A and B'));
    await E(host).send('fae', ['Here is ', ', adopt it and list the shelves.'], ['shelves'], ['shelf-tool']);
    t.is(messageText(await nextFromFae()), 'done');

    t.deepEqual(lastResults(llm.requests[1]), {
      adoptTool:
        "Adopted @shelves from message #1 as tools/shelf-list. It is available now as `tool_list` (its own name `list` is a built-in's).",
    });
    const offered = llm.requests[1].tools.filter(tool => ['list', 'tool_list'].includes(tool.function.name));
    t.is(offered.length, 2);
    t.regex(offered[1].function.description, /^Answers shelves A and B\. \(Offered as tool_list: its own name, list, is a built-in's\.\)$/);
    const results = lastResults(llm.requests[2]);
    t.is(results.tool_list, 'shelves A and B');
    // The built-in still answers to its own name.
    t.true(JSON.parse(results.list).includes('tools'));
    await daemon.stop();
  });
}

test('when tool_<name> is taken too, the tool gets a further name, and the one called tool_<name> keeps it', async t => {
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'adoptTool', arguments: { messageNumber: 1, edgeName: 'r', toolName: 'my-reject' } }] },
    { toolCalls: [{ name: 'tool_reject', arguments: {} }, { name: 'tool_reject_2', arguments: {} }] },
    { text: 'done' },
  ]);
  const { host, daemon, nextFromFae } = await startFaeInDaemon({
    provider: llm.provider,
    introducedNames: { 'own-name': 'own-name' },
    prepare: async (_h, d) => {
      await makeToolCaplet(d, 'own-name', () => makeNamedTool('tool_reject', 'I am tool_reject myself'));
    },
  });
  await nextFromFae();
  await makeToolCaplet(daemon, 'reject-tool', () => makeNamedTool('reject', 'I was called reject'));
  await E(host).send('fae', ['Take ', ''], ['r'], ['reject-tool']);
  t.is(messageText(await nextFromFae()), 'done');
  t.regex(
    lastResults(llm.requests[1]).adoptTool,
    /It is available now as `tool_reject_2` \(its own name `reject` is a built-in's\)\.$/,
  );
  t.deepEqual(lastResults(llm.requests[2]), {
    tool_reject: 'I am tool_reject myself',
    tool_reject_2: 'I was called reject',
  });
  t.is(llm.requests[2].toolNames.filter(name => name === 'reject').length, 1);
  await daemon.stop();
});

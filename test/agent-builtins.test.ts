// FAE_BUILTINS (issue 23): the host chooses which groups of built-ins the
// model is offered; the system prompt names only those, and with all of
// them it is fae's prompt byte for byte.
import test from 'ava';
import { E } from '@endo/far';
import { startFaeInDaemon } from './support/fae-harness.js';
import { makeScriptedProvider } from './support/scripted-provider.js';
import { messageText } from './support/daemon.js';
import { FAE_SYSTEM_PROMPT, systemPromptFor } from '../src/agent/turn/system-prompt.js';
import { BUILT_IN_GROUPS, BUILT_IN_GROUP_NAMES } from '../src/toolbox/built-ins/built-in-tools.js';
import { readFaeConfig } from '../src/agent/config.js';

test('with every group the prompt is fae\'s own, byte for byte; with fewer it names only what is offered', t => {
  t.is(systemPromptFor(BUILT_IN_GROUP_NAMES), FAE_SYSTEM_PROMPT);
  const mailOnly = systemPromptFor(['mail']);
  t.true(mailOnly.includes('# Mail'));
  t.false(mailOnly.includes('# Your directory'));
  t.false(/\binspect\b|\blookup\b|makeDirectory/.test(mailOnly));
  const none = systemPromptFor([]);
  t.false(/\breply\b|adoptTool|# Mail/.test(none));
  t.true(none.includes('write your answer as plain text'));
  const directoryOnly = systemPromptFor(['directory']);
  t.false(/\binspect\b|\bsend\b|adoptTool/.test(directoryOnly));
});

test('FAE_BUILTINS is read in the groups\' own order, and a name it does not know is a clear error', t => {
  t.deepEqual(readFaeConfig({ FAE_BUILTINS: ' Mail , directory ' }).builtIns, ['directory', 'mail']);
  t.deepEqual(readFaeConfig({ FAE_BUILTINS: 'all' }).builtIns, BUILT_IN_GROUP_NAMES);
  t.throws(() => readFaeConfig({ FAE_BUILTINS: 'mail,files' }), {
    message: 'FAE_BUILTINS must be all, or some of directory, mail, inspection, conversations separated by commas; "files" is none of them',
  });
});

test('a fae offered mail only is offered exactly the mail built-ins, with the prompt that names them', async t => {
  const llm = makeScriptedProvider([{ text: 'Fine.' }]);
  const started = await startFaeInDaemon({ provider: llm.provider, env: { FAE_BUILTINS: 'mail' } });
  t.teardown(() => started.daemon.stop());
  await started.nextFromFae();
  await E(started.host).send('fae', ['hello'], [], []);
  t.is(messageText(await started.nextFromFae()), 'Fine.');
  const [request] = llm.requests;
  const mail = BUILT_IN_GROUPS.find(({ group }) => group === 'mail')?.names ?? [];
  t.deepEqual([...request.toolNames].sort(), [...mail].sort());
  t.is(request.messages[0].content, systemPromptFor(['mail']));
});

test("the host's instructions (FAE_SYSTEM_PROMPT) follow the prompt of the built-ins offered, which stays whole", async t => {
  const llm = makeScriptedProvider([{ text: 'Fine.' }, { text: 'Still fine.' }]);
  const env = { FAE_BUILTINS: 'mail', FAE_SYSTEM_PROMPT: 'Sign every answer "helper".\n' };
  const started = await startFaeInDaemon({ provider: llm.provider, env });
  t.teardown(() => started.daemon.stop());
  await started.nextFromFae();
  await E(started.host).send('fae', ['hello'], [], []);
  await started.nextFromFae();
  await E(started.host).send('fae', ['hello again'], [], []);
  await started.nextFromFae();
  const expected = `${systemPromptFor(['mail'])}\n\n# Your host's instructions\nSign every answer "helper".`;
  t.deepEqual(
    llm.requests.map(request => request.messages[0].content),
    [expected, expected],
  );
});

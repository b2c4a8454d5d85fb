// The built caplet (dist/agent.js) as the daemon runs it: imported by
// makeUnconfined, configured only through env, talking to an LLM over real
// HTTP through the official SDK.
import test from 'ava';
import { E } from '@endo/far';
import { makeLocalDaemon, messageText, nextMessage, fromSelf, specialNames } from './support/daemon.js';
import { startLlmServer } from './support/llm-server.js';
import { makeShippedTool } from './support/tool-caplets.js';
import type { Far } from './support/fae-harness.js';

const agentUrl = new URL('../agent.js', import.meta.url).href;

test('dist/agent.js runs in the daemon against an OpenAI-compatible server', async t => {
  const server = await startLlmServer('openai');
  t.teardown(() => server.close());
  server
    .reply({ toolCalls: [{ name: 'adoptTool', arguments: { messageNumber: 1, edgeName: 'greeter', toolName: 'greet-tool' } }] })
    .reply({ toolCalls: [{ name: 'greet', arguments: { name: 'Ada' } }] })
    .reply({ text: 'Greeted Ada for you.' });
  const daemon = makeLocalDaemon();
  t.teardown(() => daemon.stop());
  const host: Far = await daemon.host;
  await E(host).provideGuest('fae', { introducedNames: {}, agentName: 'profile-for-fae' });
  const { LAL_HOST } = server.env();
  await E(host).makeUnconfined(specialNames.main, agentUrl, {
    powersName: 'profile-for-fae',
    resultName: 'controller-for-fae',
    env: { LAL_HOST, LAL_MODEL: 'test-model' },
  });
  const notFromHost = fromSelf(host);
  const ready = await nextMessage(host, notFromHost);
  t.true(messageText(ready).startsWith('Fae agent ready. '));
  await makeShippedTool(host, 'greet', 'greet-tool');
  await E(host).send('fae', ['Please greet Ada with ', ''], ['greeter'], ['greet-tool']);
  const answer = await nextMessage(host, async m => m.number > ready.number && (await notFromHost(m)));
  t.is(messageText(answer), 'Greeted Ada for you.');

  const [first, second, third] = server.chatRequests;
  t.is(first.body.model, 'test-model');
  t.is(first.body.messages.at(-1).content, `Message #1 from ${specialNames.host}: Please greet Ada with @greeter`);
  t.false(first.body.tools.some((tool: { function: { name: string } }) => tool.function.name === 'greet'));
  t.true(second.body.tools.some((tool: { function: { name: string } }) => tool.function.name === 'greet'));
  t.deepEqual(third.body.messages.at(-1), {
    role: 'tool',
    tool_call_id: third.body.messages.at(-2).tool_calls[0].id,
    content: 'Hello, Ada!',
  });
  const controller = await E(host).lookup('controller-for-fae');
  t.regex(await E(controller).help(), /Fae is an LLM agent/);
  const status = await E(controller).status();
  t.is(status.state, 'running');
  t.is(status.model, 'test-model');
});

test('a bad configuration makes the caplet fail with a clear error', async t => {
  const daemon = makeLocalDaemon();
  t.teardown(() => daemon.stop());
  const host: Far = await daemon.host;
  await E(host).provideGuest('fae', { introducedNames: {}, agentName: 'profile-for-fae' });
  await t.throwsAsync(
    E(host).makeUnconfined(specialNames.main, agentUrl, {
      powersName: 'profile-for-fae',
      resultName: 'controller-for-fae',
      env: { LAL_HOST: 'http://127.0.0.1:1/v1', FAE_MAX_ITERATIONS: 'lots' },
    }),
    { message: /FAE_MAX_ITERATIONS must be a positive whole number, not "lots"/ },
  );
});

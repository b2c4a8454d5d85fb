// Settings from the UI (issue 21 part 2): the built caplet set up without
// an LLM sends its host a form (May and August), starts answering once the
// form is answered, takes /settings answers at once, keeps them over a
// restart, and never lets the token out: not in mail, not in status(),
// not to the model's tools. February, which has no forms, keeps the
// defaults.
import test from 'ava';
import { E } from '@endo/far';
import { dialect, fromSelf, makeLocalDaemon, messageText, nextMessage, specialNames, type MessageRecord } from './support/daemon.js';
import { closedLoopbackUrl, startLlmServer, type LlmServer } from './support/llm-server.js';
import { inFormWords } from '../src/agent/host/llm-settings.js';
import type { Far } from './support/fae-harness.js';

const agentUrl = new URL('../agent.js', import.meta.url).href;
const FORM_TOKEN = 'sk-from-the-form-0123456789abcdef';
const hasForms = dialect !== 'feb';

type FormRecord = MessageRecord & {
  readonly fields?: readonly { name: string; default?: string; secret?: boolean }[];
  readonly description?: string;
};

/** fae as setup starts it, from dist/agent.js with `env`; every message it sends the host is collected. */
const startAgent = async (t: { teardown(f: () => unknown): void }, env: Record<string, string>) => {
  const daemon = makeLocalDaemon();
  t.teardown(() => daemon.stop());
  const host: Far = await daemon.host;
  await E(host).provideGuest('fae', { introducedNames: {}, agentName: 'profile-for-fae' });
  await E(host).makeUnconfined(specialNames.main, agentUrl, {
    powersName: 'profile-for-fae',
    resultName: 'controller-for-fae',
    env: { FAE_PROGRESS_AFTER_MS: '3600000', ...env },
  });
  const fromFae = fromSelf(host);
  let last = -1n;
  /** The next message from fae (a form included) after the last one returned. */
  const next = async (): Promise<FormRecord> => {
    const found = await nextMessage(host, async m => m.number > last && (await fromFae(m)), 20_000);
    last = found.number;
    return found;
  };
  const controller = async () => E(host).lookup('controller-for-fae');
  const fae: Far = await E(host).lookup('profile-for-fae');
  return { daemon, host, fae, next, controller };
};

/** Every text fae has mailed its host, forms' descriptions and fields included. */
const everythingMailed = async (host: Far) => JSON.stringify(await E(host).listMessages(), (_, v) => (typeof v === 'bigint' ? String(v) : v));

/** The next form fae sends its host. */
const nextForm = async (started: Awaited<ReturnType<typeof startAgent>>) => {
  for (;;) {
    const message = await started.next();
    if (message.type === 'form') return message;
  }
};

const answerNextForm = async (started: Awaited<ReturnType<typeof startAgent>>, values: Record<string, string>) => {
  const form = await nextForm(started);
  await E(started.host).submit(form.number, values);
  return form;
};

test('set up without an LLM, fae asks with a form and answers once it is answered', async t => {
  const llm: LlmServer = await startLlmServer('openai');
  t.teardown(() => llm.close());
  llm.reply({ text: 'Hello from the form model.' });
  const started = await startAgent(t, {});
  const ready = await started.next();
  t.true(messageText(ready).startsWith('Fae agent ready. '));
  if (!hasForms) {
    // No forms: the defaults, as before (a local Ollama).
    const status = await E(await started.controller()).status();
    t.is(status.model, 'qwen3');
    t.is(status.llm, 'ready');
    return;
  }
  t.regex(messageText(ready), /fill in the form I am sending you/);
  const form = await started.next();
  t.is(form.type, 'form');
  t.is(form.description, "fae's language model. The token is never shown; left empty, the one in use (if any) stays.");
  t.deepEqual(
    form.fields?.map(field => [field.name, field.secret ?? false, field.default]),
    [['host', false, 'http://localhost:11434'], ['model', false, 'qwen3'], ['authToken', true, ''], ['maxTokens', false, '4096']],
  );
  t.is((await E(await started.controller()).status()).llm, 'waiting for the host to answer the settings form');

  // A question before the answer waits for it, then gets its answer.
  await E(started.host).send('fae', ['Hello?'], [], []);
  await E(started.host).submit(form.number, { host: llm.url, model: 'form-model', authToken: FORM_TOKEN, maxTokens: '512' });
  // In the order that makes sense: the change, then the answer it allowed.
  const said = [messageText(await started.next()), messageText(await started.next())];
  t.deepEqual(said, [`Settings changed: I now use the openai model "form-model" at ${llm.url}.`, 'Hello from the form model.']);
  const [request] = llm.chatRequests;
  t.is(request.headers.authorization, `Bearer ${FORM_TOKEN}`);
  t.is(request.body.model, 'form-model');
  t.is(request.body.max_tokens, 512);

  // The answer and fae's copy of the form are gone from its inbox; the token is nowhere fae speaks.
  const inbox: FormRecord[] = await E(started.fae).listMessages();
  t.false(inbox.some(message => message.type === 'value' || message.type === 'form'));
  const status = await E(await started.controller()).status();
  t.is(status.model, 'form-model');
  t.false(JSON.stringify(status).includes(FORM_TOKEN));
  const mailed = (await E(started.host).listMessages()).filter((m: FormRecord) => m.type !== 'value');
  t.false(JSON.stringify(mailed, (_, v) => (typeof v === 'bigint' ? String(v) : v)).includes(FORM_TOKEN));
});

test('a question waiting for the settings says so in its progress reply, not that the model is slow', async t => {
  const llm: LlmServer = await startLlmServer('openai');
  t.teardown(() => llm.close());
  llm.reply({ text: 'Hello from the form model.' });
  const started = await startAgent(t, { FAE_PROGRESS_AFTER_MS: '100' });
  await started.next();
  if (!hasForms) {
    t.is((await E(await started.controller()).status()).llm, 'ready', 'February has no forms: fae never waits for settings');
    return;
  }
  const form = await nextForm(started);
  await E(started.host).send('fae', ['Hello?'], [], []);
  const progress = await started.next();
  t.is(messageText(progress), 'Working on it… waiting for your answer to the settings form.');
  await E(started.host).submit(form.number, { host: llm.url, model: 'form-model', authToken: FORM_TOKEN, maxTokens: '512' });
  const deadline = Date.now() + 20_000;
  while (llm.chatRequests.length === 0 && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 20));
  t.is(llm.chatRequests.length, 1, 'the waiting question went to the model once the settings came');
});

test('/settings changes the model at once, keeps the token, and outlives a restart', async t => {
  const llm: LlmServer = await startLlmServer('openai');
  t.teardown(() => llm.close());
  llm.reply({ text: 'one' }).reply({ text: 'two' }).reply({ text: 'three' });
  const env = llm.env({ LAL_MODEL: 'first-model' });
  const started = await startAgent(t, env);
  await started.next(); // ready
  await E(started.host).send('fae', ['/settings'], [], []);
  if (!hasForms) {
    t.regex(messageText(await started.next()), /cannot be changed from here/);
    return;
  }
  const form = await answerNextForm(started, { host: llm.url, model: 'second-model', authToken: '', maxTokens: '100' });
  t.deepEqual(
    form.fields?.map(field => field.default),
    [llm.url, 'first-model', '', '4096'],
    'filled in with what fae uses now, the token never',
  );
  t.regex(messageText(await started.next()), /I have sent you a form|Settings changed/);
  t.regex(messageText(await started.next()), /I have sent you a form|Settings changed/);
  await E(started.host).send('fae', ['Which model?'], [], []);
  t.is(messageText(await started.next()), 'one');
  t.is(llm.chatRequests[0].body.model, 'second-model');
  t.is(llm.chatRequests[0].headers.authorization, `Bearer ${env.LAL_AUTH_TOKEN}`, 'an empty token field keeps the token');

  await started.daemon.restart();
  await E(await started.controller()).whenStarted();
  await E(started.host).send('fae', ['And now?'], [], []);
  t.is(messageText(await started.next()), 'two');
  t.is(llm.chatRequests[1].body.model, 'second-model', 'the settings from the form outlive a restart');
  t.false((await everythingMailed(started.host)).includes(env.LAL_AUTH_TOKEN));
});

test('settings fae cannot use are refused with the reason, and the old ones kept', async t => {
  if (!hasForms) {
    t.pass('no forms on February');
    return;
  }
  const llm: LlmServer = await startLlmServer('openai');
  t.teardown(() => llm.close());
  llm.reply({ text: 'still here' });
  const started = await startAgent(t, llm.env({ LAL_MODEL: 'kept-model' }));
  await started.next(); // ready
  await E(started.host).send('fae', ['/settings'], [], []);
  await answerNextForm(started, { host: 'localhost:11434', model: 'x', authToken: '', maxTokens: '100' });
  const texts = [messageText(await started.next()), messageText(await started.next())];
  // In the form's words: the host filled in a "Provider URL", and never saw LAL_HOST.
  t.true(texts.some(text => /^I kept my settings: the provider URL must start with http:\/\/ or https:\/\//.test(text)), texts.join('\n'));
  t.false(texts.some(text => text.includes('LAL_')), texts.join('\n'));
  await E(started.host).send('fae', ['Still there?'], [], []);
  t.is(messageText(await started.next()), 'still here');
  t.is(llm.chatRequests[0].body.model, 'kept-model');
});

test('with settings from the form, the host reads of trouble in the form\'s words; the log keeps LAL_HOST', async t => {
  if (!hasForms) {
    t.pass('no forms on February');
    return;
  }
  const started = await startAgent(t, {});
  await started.next(); // ready
  const down = await closedLoopbackUrl('openai');
  await answerNextForm(started, { host: down, model: 'm', authToken: FORM_TOKEN, maxTokens: '100' });
  t.regex(messageText(await started.next()), /^Settings changed: I now use the openai model "m" at /);
  await E(started.host).send('fae', ['are you there?'], [], []);
  const notice = messageText(await started.next());
  t.true(notice.startsWith(`Sorry, I could not answer your message`), notice);
  t.regex(notice, /cannot reach the LLM at .*; check the provider URL in \/settings and that the server is running$/);
  t.false(notice.includes('LAL_'), notice);
  const status = await E(await started.controller()).status();
  t.regex(status.lastError, /check the provider URL in \/settings/);
  t.false(notice.includes(FORM_TOKEN));
});

test('inFormWords names the settings as the form does', t => {
  t.is(
    inFormWords('the LLM at x denied access (HTTP 401); no LAL_AUTH_TOKEN is set: set LAL_AUTH_TOKEN to a valid API key for it', ' in /settings'),
    'the LLM at x denied access (HTTP 401); no API token is set: set the API token in /settings to a valid API key for it',
  );
  t.is(
    inFormWords('the LLM at x does not know the model "m" (HTTP 404); set LAL_MODEL to a model it serves'),
    'the LLM at x does not know the model "m" (HTTP 404); set the model to a model it serves',
  );
  t.is(inFormWords('raise LAL_MAX_TOKENS, or LAL_MAX_RETRIES', ' in /settings'), 'raise the maximum tokens per answer in /settings, or LAL_MAX_RETRIES');
});

test("the model's tools never see the host's answer or the stored settings", async t => {
  if (!hasForms) {
    t.pass('no forms on February');
    return;
  }
  const llm: LlmServer = await startLlmServer('openai');
  t.teardown(() => llm.close());
  llm
    .reply({ toolCalls: [{ name: 'listMessages', arguments: {} }] })
    .reply({ toolCalls: [{ name: 'lookup', arguments: { petName: 'llm-settings' } }] })
    .reply({ toolCalls: [{ name: 'list', arguments: {} }] })
    .reply({ text: 'done looking' });
  const started = await startAgent(t, {});
  await started.next(); // ready
  await answerNextForm(started, { host: llm.url, model: 'm', authToken: FORM_TOKEN, maxTokens: '100' });
  await started.next(); // settings changed
  await E(started.host).send('fae', ['Look around'], [], []);
  t.is(messageText(await started.next()), 'done looking');
  const results = llm.chatRequests.slice(1).map(request => request.body.messages.at(-1).content as string);
  t.false(results.some(text => text.includes(FORM_TOKEN)), results.join('\n'));
  t.false(results[0].includes('"value"'), 'listMessages shows no answer to a form');
  t.regex(results[1], /llm-settings.*fae's language model settings; no tool may read or change it/);
  t.false(results[2].includes('llm-settings'));
});

test('a form left open over a restart is not sent again, and its answer still counts', async t => {
  if (!hasForms) {
    t.pass('no forms on February');
    return;
  }
  const llm: LlmServer = await startLlmServer('openai');
  t.teardown(() => llm.close());
  llm.reply({ text: 'answered after the restart' });
  const started = await startAgent(t, {});
  await started.next(); // ready
  const form = await started.next();
  t.is(form.type, 'form');
  await started.daemon.restart();
  await E(await started.controller()).whenStarted();
  await E(started.host).submit(form.number, { host: llm.url, model: 'late-model', authToken: FORM_TOKEN, maxTokens: '64' });
  t.is(messageText(await started.next()), `Settings changed: I now use the openai model "late-model" at ${llm.url}.`);
  await E(started.host).send('fae', ['Hi'], [], []);
  t.is(messageText(await started.next()), 'answered after the restart');
  const forms = (await E(started.host).listMessages()).filter((m: FormRecord) => m.type === 'form');
  t.is(forms.length, 1, 'one form in all');
});

test('a form submitted again (the Endo Chat UI allows it) changes the settings again', async t => {
  if (!hasForms) {
    t.pass('no forms on February');
    return;
  }
  const llm: LlmServer = await startLlmServer('openai');
  t.teardown(() => llm.close());
  llm.reply({ text: 'from the second answer' });
  const started = await startAgent(t, {});
  await started.next(); // ready
  const form = await answerNextForm(started, { host: llm.url, model: 'first-answer', authToken: FORM_TOKEN, maxTokens: '64' });
  t.regex(messageText(await started.next()), /"first-answer"/);
  await E(started.host).submit(form.number, { host: llm.url, model: 'second-answer', authToken: '', maxTokens: '64' });
  t.regex(messageText(await started.next()), /"second-answer"/);
  await E(started.host).send('fae', ['Which one?'], [], []);
  t.is(messageText(await started.next()), 'from the second answer');
  t.is(llm.chatRequests[0].body.model, 'second-answer');
  t.is(llm.chatRequests[0].headers.authorization, `Bearer ${FORM_TOKEN}`);
});

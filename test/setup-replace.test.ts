// Changing fae's settings (issue 11 §4): setup-replace stops the running
// fae and starts one with the new settings, keeping its guest, tools/ and
// unanswered mail; afterwards, also across a daemon restart, exactly one fae
// answers, with the new settings. Plain setup notices a pin that holds
// another fae than controller-for-fae (what the old "cancel, remove, run
// setup again" recipe left behind) and stops that fae.
import test, { type ExecutionContext } from 'ava';
import { E } from '@endo/far';
import { makePromiseKit } from '@endo/promise-kit';
import { main, setupReplace } from '../setup-replace.js';
import { setup } from '../setup.js';
import { setupWithTools } from '../setup-with-tools.js';
import { builtModuleUrl } from '../src/provisioning/provisioning.js';
import { dialect, specialNames } from './support/daemon.js';
import type { LlmServer } from './support/llm-server.js';
import { answerByWord, countFrom, waitFor } from './support/host-mail.js';
import { startDaemonWithLlms } from './support/daemon-with-llms.js';

// `any`: the daemon's objects are remote references.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

const TOOL_NAMES = ['greet-tool', 'math-tool', 'timestamp-tool'];

/** The pin as setup's report names it (the CLI's path syntax). */
const pinLabel = () => `${specialNames.pins}${dialect === 'feb' ? '.' : '/'}controller-for-fae`;

const start = async (t: Parameters<typeof startDaemonWithLlms>[0]) => {
  const { daemon, llms, host } = await startDaemonWithLlms(t, ['openai', 'openai']);
  return { daemon, oldLlm: llms[0], newLlm: llms[1], host };
};

/** After a restart: two messages, each answered once, by the new model only. */
const onlyNewFaeAnswers = async (t: ExecutionContext, host: Far, oldLlm: LlmServer) => {
  await E(host).send('fae', ['Answer the first message'], [], []);
  await waitFor(host, 'new-model answers first');
  await E(host).send('fae', ['Answer the second message'], [], []);
  await waitFor(host, 'new-model answers second');
  t.is(await countFrom(host, 'new-model answers first'), 1);
  t.is(oldLlm.chatRequests.length, 0);
};

const pinnedAndNamed = async (host: Far) => {
  return Promise.all([
    E(host).identify(specialNames.pins, 'controller-for-fae'),
    E(host).identify('controller-for-fae'),
  ]);
};

test('setup-replace restarts fae with the new settings; its tools and unanswered mail stay, and only the new fae answers, also after a restart', async t => {
  const { daemon, oldLlm, newLlm, host } = await start(t);
  // The old fae's model holds its answer until after the replace, so the
  // first message is still unanswered when fae is replaced.
  const asked = makePromiseKit<void>();
  const release = makePromiseKit<void>();
  t.teardown(() => release.resolve());
  oldLlm.respond(async () => {
    asked.resolve();
    await release.promise;
    return { text: 'old-model answers first' };
  });
  answerByWord(oldLlm, 'old-model');
  answerByWord(newLlm, 'new-model');

  await setupWithTools(host, oldLlm.env({ LAL_MODEL: 'old-model' }));
  await waitFor(host, 'Fae agent ready.');
  const guestBefore = await E(host).identify('fae');
  const [, controllerBefore] = await pinnedAndNamed(host);
  await E(host).send('fae', ['Answer the first message'], [], []);
  await asked.promise;

  const report = await setupReplace(host, newLlm.env({ LAL_MODEL: 'new-model' }));
  t.regex(
    report,
    /^setup-replace:\n {2}fae: guest kept, with its directory, tools and unanswered mail\n {2}controller-for-fae: the running fae was unpinned, cancelled and removed\n {2}controller-for-fae: fae started with openai model "new-model" at http:\/\/127\.0\.0\.1:\d+\/v1\n {2}controller-for-fae: pinned, so fae starts again with the daemon$/,
  );
  // The new fae answers the mail the old one left unanswered.
  await waitFor(host, 'new-model answers first');
  release.resolve();

  // Same guest, same tools; a new controller, and the pin follows it.
  t.is(await E(host).identify('fae'), guestBefore);
  const fae = E(host).lookup('profile-for-fae');
  t.deepEqual([...(await E(fae).list('tools'))].sort(), TOOL_NAMES);
  const [pinned, controller] = await pinnedAndNamed(host);
  t.not(controller, controllerBefore);
  t.is(pinned, controller);
  t.like(await E(E(host).lookup('controller-for-fae')).status(), { model: 'new-model' });

  await E(host).send('fae', ['Answer the second message'], [], []);
  await waitFor(host, 'new-model answers second');
  await daemon.restart();
  await E(host).send('fae', ['Answer the third message'], [], []);
  await waitFor(host, 'new-model answers third');

  // One answer to each message, all from the new settings; the old model
  // was asked once, before the replace, and its answer never arrived.
  for (const word of ['first', 'second', 'third']) {
    t.is(await countFrom(host, `new-model answers ${word}`), 1, word);
  }
  t.is(await countFrom(host, 'old-model answers first'), 0);
  t.is(oldLlm.chatRequests.length, 1);
  t.is(await countFrom(host, 'Fae agent ready.'), 1);
});

test('setup notices a pin on another fae, as "cancel, remove, run setup again" left it, and stops that fae', async t => {
  const { daemon, oldLlm, newLlm, host } = await start(t);
  answerByWord(oldLlm, 'old-model');
  answerByWord(newLlm, 'new-model');
  await setup(host, oldLlm.env({ LAL_MODEL: 'old-model' }));
  await waitFor(host, 'Fae agent ready.');
  // The recipe the README used to give: the pin keeps the old fae.
  await E(host).cancel('controller-for-fae');
  await E(host).remove('controller-for-fae');

  const report = await setup(host, newLlm.env({ LAL_MODEL: 'new-model' }));
  t.true(
    report.includes(
      `${pinLabel()}: held a fae whose name controller-for-fae had been removed, still running with its old settings and answering every message a second time; unpinned it, so the daemon stops it`,
    ),
    report,
  );
  t.true(report.includes('controller-for-fae: fae started with openai model "new-model"'), report);
  const [pinned, controller] = await pinnedAndNamed(host);
  t.is(pinned, controller);

  // A restart revives what is pinned or named: only the new fae.
  await daemon.restart();
  await onlyNewFaeAnswers(t, host, oldLlm);
});

test('setup unpins a second fae that runs beside controller-for-fae, and pins controller-for-fae', async t => {
  const { daemon, oldLlm, newLlm, host } = await start(t);
  answerByWord(oldLlm, 'old-model');
  answerByWord(newLlm, 'new-model');
  await setup(host, oldLlm.env({ LAL_MODEL: 'old-model' }));
  await waitFor(host, 'Fae agent ready.');
  // A second fae made under the same name, as running setup again did
  // before setup checked names: the pin still holds the first one.
  await E(host).makeUnconfined(specialNames.main, builtModuleUrl('agent.js'), {
    powersName: 'profile-for-fae',
    resultName: 'controller-for-fae',
    env: newLlm.env({ LAL_MODEL: 'new-model' }),
  });
  const [stale, second] = await pinnedAndNamed(host);
  t.not(stale, second);

  const report = await setup(host, newLlm.env({ LAL_MODEL: 'new-model' }));
  t.true(
    report.includes(
      `${pinLabel()}: held another fae than controller-for-fae, still running with its old settings and answering every message a second time; unpinned it, so the daemon stops it`,
    ),
    report,
  );
  t.true(report.includes('controller-for-fae: already running, left as it is'), report);
  t.true(report.includes('controller-for-fae: pinned, so fae starts again with the daemon'), report);
  t.deepEqual(await pinnedAndNamed(host), [second, second]);

  await daemon.restart();
  await onlyNewFaeAnswers(t, host, oldLlm);
});

test('setup-replace without a fae refuses and creates nothing', async t => {
  const { newLlm, host } = await start(t);
  const before = await E(host).list();
  await t.throwsAsync(setupReplace(host, newLlm.env()), {
    message:
      'There is no fae to replace: this host has no "fae"; nothing was changed. Provision it with "npm run setup" (or setup-with-tools)',
  });
  t.deepEqual(await E(host).list(), before);
});

test('a bad setting stops setup-replace before the running fae is touched', async t => {
  const { oldLlm, host } = await start(t);
  answerByWord(oldLlm, 'old-model');
  await setup(host, oldLlm.env({ LAL_MODEL: 'old-model' }));
  await waitFor(host, 'Fae agent ready.');
  const before = await pinnedAndNamed(host);
  await t.throwsAsync(setupReplace(host, { LAL_HOST: 'https://api.anthropic.com' }), {
    message: /^LAL_AUTH_TOKEN is required for Anthropic/,
  });
  t.deepEqual(await pinnedAndNamed(host), before);
  await E(host).send('fae', ['Answer the first message'], [], []);
  await waitFor(host, 'old-model answers first');
});

test.serial('main(agent) replaces fae with the settings endo run puts in process.env', async t => {
  const { oldLlm, newLlm, host } = await start(t);
  await setup(host, oldLlm.env({ LAL_MODEL: 'old-model' }));
  const saved = { ...process.env };
  t.teardown(() => {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  });
  Object.assign(process.env, newLlm.env({ LAL_MODEL: 'from-process-env' }));
  const report = await main(host);
  t.regex(report, /fae started with openai model "from-process-env"/);
});

// Several faes on one host (issue 21): FAE_NAME=helper provisions a fae of
// its own beside `fae` (guest `helper`, powers `profile-for-helper`,
// controller `controller-for-helper`, pinned), with its own settings, tools
// and conversations. Each answers its own mail only, and setup,
// setup-replace and stopping for good act on the fae they name alone.
import test from 'ava';
import { E } from '@endo/far';
import { setup } from '../setup.js';
import { setupReplace } from '../setup-replace.js';
import { setupWithTools } from '../setup-with-tools.js';
import { specialNames } from './support/daemon.js';
import { answerByWord, countFrom, lastUserText, waitFor } from './support/host-mail.js';
import { startDaemonWithLlms } from './support/daemon-with-llms.js';
import type { LlmKind, LlmServer } from './support/llm-server.js';

// `any`: the daemon's objects are remote references.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

const TOOL_NAMES = ['greet-tool', 'math-tool', 'timestamp-tool'];
const URL_PATTERN = String.raw`http://127\.0\.0\.1:\d+/v1`;

/** What the pin and the name of a fae's controller hold. */
const pinnedAndNamed = (host: Far, name: string) =>
  Promise.all([
    E(host).identify(specialNames.pins, `controller-for-${name}`),
    E(host).identify(`controller-for-${name}`),
  ]);

/** Every message a model was shown, as one text per request. */
const shown = (llm: LlmServer) => llm.chatRequests.map(request => JSON.stringify(request.body.messages));

/** `fae` from one model, `helper` from another, both ready. */
const startTwo = async (t: Parameters<typeof startDaemonWithLlms>[0], kinds: readonly LlmKind[] = ['openai', 'openai']) => {
  const { daemon, llms, host } = await startDaemonWithLlms(t, kinds);
  const [faeLlm, helperLlm] = llms;
  answerByWord(faeLlm, 'fae-model');
  answerByWord(helperLlm, 'helper-model');
  return { daemon, llms, host, faeLlm, helperLlm };
};

test('two faes on one host: each its own guest, powers, controller, pin and tools, each answering its own mail from its own conversations', async t => {
  const { host, faeLlm, helperLlm } = await startTwo(t);
  await setupWithTools(host, faeLlm.env({ LAL_MODEL: 'fae-model' }));
  const faeReady = await waitFor(host, 'Fae agent ready.', 'fae');
  const report = await setup(host, helperLlm.env({ LAL_MODEL: 'helper-model', FAE_NAME: 'helper' }));
  t.regex(
    report,
    new RegExp(
      `^setup:\n {2}helper: guest created \\(powers profile-for-helper\\)\n {2}controller-for-helper: helper started with openai model "helper-model" at ${URL_PATTERN}\n {2}controller-for-helper: pinned, so helper starts again with the daemon$`,
    ),
  );
  // The default fae's ready message is as it always was; a named one says its name.
  t.is(
    (await waitFor(host, 'Fae agent ready.', 'helper')).strings?.join(''),
    'Fae agent ready. I am helper. Write to me here; mail me a tool as @name and I can adopt it and use it at once. /help lists what I answer myself.',
  );
  t.regex(faeReady.strings?.join('') ?? '', /^Fae agent ready\. Write to me here;/);

  const names = ['fae', 'profile-for-fae', 'controller-for-fae', 'helper', 'profile-for-helper', 'controller-for-helper'];
  const ids = await Promise.all(names.map(name => E(host).identify(name)));
  t.true(ids.every(id => typeof id === 'string'));
  t.is(new Set(ids).size, names.length);
  t.deepEqual(await pinnedAndNamed(host, 'fae'), [ids[2], ids[2]]);
  t.deepEqual(await pinnedAndNamed(host, 'helper'), [ids[5], ids[5]]);
  t.like(await E(E(host).lookup('controller-for-helper')).status(), { state: 'running', model: 'helper-model' });
  // The tools went to fae alone.
  t.deepEqual([...(await E(host).list('profile-for-fae', 'tools'))].sort(), TOOL_NAMES);
  t.deepEqual([...(await E(host).list('profile-for-helper', 'tools'))], []);

  await E(host).send('fae', ['Answer the first message'], [], []);
  await E(host).send('helper', ['Answer the second message'], [], []);
  await waitFor(host, 'fae-model answers first', 'fae');
  await waitFor(host, 'helper-model answers second', 'helper');
  await E(host).send('helper', ['Answer the third message'], [], []);
  await waitFor(host, 'helper-model answers third', 'helper');

  // Each answered once, and only its own mail.
  t.is(await countFrom(host, 'helper-model answers', 'fae'), 0);
  t.is(await countFrom(host, 'fae-model answers', 'helper'), 0);
  t.is(await countFrom(host, 'helper-model answers second'), 1);
  // helper's second turn continues its own conversation, which never held fae's.
  t.true(shown(helperLlm).at(-1)?.includes('Answer the second message'));
  t.false(shown(helperLlm).some(text => text.includes('Answer the first message')));
  t.false(shown(faeLlm).some(text => /Answer the (second|third) message/.test(text)));
});

test('setup for one fae leaves the other alone, and tells how to change the one it names', async t => {
  const { host, faeLlm, helperLlm } = await startTwo(t);
  await setup(host, faeLlm.env({ LAL_MODEL: 'fae-model' }));
  await setup(host, helperLlm.env({ LAL_MODEL: 'helper-model', FAE_NAME: 'helper' }));
  await waitFor(host, 'Fae agent ready. I am helper.', 'helper');
  const helperBefore = await pinnedAndNamed(host, 'helper');
  t.is(
    await setup(host, faeLlm.env({ LAL_MODEL: 'fae-model' })),
    [
      'setup:',
      '  fae: guest already present, left as it is',
      '  controller-for-fae: already running, left as it is (to change its settings, run "npm run setup-replace" with the new ones)',
      '  controller-for-fae: already pinned',
    ].join('\n'),
  );
  t.is(
    await setup(host, helperLlm.env({ LAL_MODEL: 'helper-model', FAE_NAME: 'helper' })),
    [
      'setup:',
      '  helper: guest already present, left as it is',
      '  controller-for-helper: already running, left as it is (to change its settings, run "npm run setup-replace -- -E FAE_NAME=helper" with the new ones)',
      '  controller-for-helper: already pinned',
    ].join('\n'),
  );
  t.deepEqual(await pinnedAndNamed(host, 'helper'), helperBefore);
  t.is(await countFrom(host, 'Fae agent ready.', 'helper'), 1);
});

test('setup-replace by name replaces that fae alone; stopping it for good by name leaves the other answering, also after a restart', async t => {
  const { daemon, llms, host, faeLlm, helperLlm } = await startTwo(t, ['openai', 'openai', 'openai']);
  const newLlm = answerByWord(llms[2], 'helper-new');
  await setup(host, faeLlm.env({ LAL_MODEL: 'fae-model' }));
  await setup(host, helperLlm.env({ LAL_MODEL: 'helper-model', FAE_NAME: 'helper' }));
  await waitFor(host, 'Fae agent ready.', 'fae');
  await waitFor(host, 'Fae agent ready. I am helper.', 'helper');
  const faeBefore = await pinnedAndNamed(host, 'fae');
  const helperBefore = await pinnedAndNamed(host, 'helper');

  const report = await setupReplace(host, newLlm.env({ LAL_MODEL: 'helper-new', FAE_NAME: 'helper' }));
  t.regex(
    report,
    new RegExp(
      `^setup-replace:\n {2}helper: guest kept, with its directory, tools and unanswered mail\n {2}controller-for-helper: the running fae was unpinned, cancelled and removed\n {2}controller-for-helper: helper started with openai model "helper-new" at ${URL_PATTERN}\n {2}controller-for-helper: pinned, so helper starts again with the daemon$`,
    ),
  );
  t.deepEqual(await pinnedAndNamed(host, 'fae'), faeBefore);
  const [helperPin, helperController] = await pinnedAndNamed(host, 'helper');
  t.not(helperController, helperBefore[1]);
  t.is(helperPin, helperController);
  await E(host).send('fae', ['Answer the first message'], [], []);
  await E(host).send('helper', ['Answer the second message'], [], []);
  await waitFor(host, 'fae-model answers first', 'fae');
  await waitFor(host, 'helper-new answers second', 'helper');
  t.is(helperLlm.chatRequests.length, 0);

  // Stopping helper for good, as the README says: unpin, cancel, remove.
  await E(host).remove(specialNames.pins, 'controller-for-helper');
  await E(host).cancel('controller-for-helper');
  await E(host).remove('controller-for-helper');
  await daemon.restart();
  await E(host).send('helper', ['Answer the third message'], [], []);
  await E(host).send('fae', ['Answer the fourth message'], [], []);
  await waitFor(host, 'fae-model answers fourth', 'fae');
  t.deepEqual(await pinnedAndNamed(host, 'fae'), faeBefore);
  // helper's guest and its mail stay, unanswered; nothing runs it.
  t.false(newLlm.chatRequests.some(request => lastUserText(request).includes('third')));
  const helperMail = (await E(E(host).lookup('profile-for-helper')).listMessages()) as { strings?: string[] }[];
  t.true(helperMail.some(record => record.strings?.join('') === 'Answer the third message'));
  t.is(await countFrom(host, 'fae-model answers fourth', 'fae'), 1);
});

test('setup-replace of a fae the host does not have names it, says how to make it, and changes nothing', async t => {
  const { host, faeLlm } = await startTwo(t);
  await setup(host, faeLlm.env());
  const before = await E(host).list();
  await t.throwsAsync(setupReplace(host, faeLlm.env({ FAE_NAME: 'helper' })), {
    message:
      'There is no fae to replace: this host has no "helper"; nothing was changed. Provision it with "npm run setup -- -E FAE_NAME=helper" (or setup-with-tools)',
  });
  t.deepEqual(await E(host).list(), before);
});

test('a FAE_NAME that cannot name a fae stops every setup script before anything is made', async t => {
  const { host, faeLlm } = await startTwo(t);
  const before = await E(host).list();
  const choose = 'choose another name for this fae';
  const cases: readonly [string, string][] = [
    ['Helper', 'FAE_NAME must be a pet name (lowercase letters, digits and "-", beginning with a letter or digit), not "Helper"'],
    ['host', `FAE_NAME "host" reads as the special name "HOST" ("@host" on the newer daemons); ${choose}`],
    ['17', `FAE_NAME "17" is all digits, which reads as the number of a message; ${choose}`],
    ['controller-for-x', `FAE_NAME "controller-for-x" begins with "controller-for-", as the names of a fae's powers and controller do; ${choose}`],
    ['profile-for-fae', `FAE_NAME "profile-for-fae" begins with "profile-for-", as the names of a fae's powers and controller do; ${choose}`],
    ['greet-tool', `FAE_NAME "greet-tool" is the name of a tool the setup scripts make; ${choose}`],
    ['run-command', `FAE_NAME "run-command" is the name of a tool the setup scripts make; ${choose}`],
    ['h'.repeat(114), `FAE_NAME "${'h'.repeat(114)}" is 114 characters long; at most 113 leave room for "controller-for-${'h'.repeat(114)}"; ${choose}`],
  ];
  for (const script of [setup, setupWithTools, setupReplace]) {
    for (const [name, message] of cases) {
      await t.throwsAsync(script(host, faeLlm.env({ FAE_NAME: name })), { message }, name);
    }
  }
  t.deepEqual(await E(host).list(), before);
  // The longest name that leaves room is a fae's name.
  const longest = 'h'.repeat(113);
  t.regex(await setup(host, faeLlm.env({ FAE_NAME: longest })), new RegExp(`controller-for-${longest}: pinned`));
});

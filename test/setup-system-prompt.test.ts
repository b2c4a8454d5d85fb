// The host's own instructions for a fae (FAE_SYSTEM_PROMPT, or the file
// FAE_SYSTEM_PROMPT_FILE names, read by the setup script): they follow
// fae's own system prompt, which stays whole, on every request byte for
// byte; a fae set up without them keeps fae's prompt exactly. A file the
// script cannot use stops it before anything is made.
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { E } from '@endo/far';
import { setup } from '../setup.js';
import { setupReplace } from '../setup-replace.js';
import { setupWithTools } from '../setup-with-tools.js';
import { MAX_HOST_PROMPT_CHARS } from '../src/agent/config.js';
import { FAE_SYSTEM_PROMPT } from '../src/agent/turn/system-prompt.js';
import { answerByWord, waitFor } from './support/host-mail.js';
import { startDaemonWithLlms } from './support/daemon-with-llms.js';
import type { LlmServer } from './support/llm-server.js';
import { tempDirs } from './support/temp-dirs.js';

const tempDir = tempDirs('fae-prompt-');
const INSTRUCTIONS = 'You are helper, the team librarian.\nAnswer in French.';

/** The system message of each chat request the model received. */
const systemPrompts = (llm: LlmServer): string[] =>
  llm.chatRequests.map(request => {
    const [first] = request.body.messages as { role: string; content: string }[];
    return first.role === 'system' ? first.content : '';
  });

const withInstructions = (text: string) => `${FAE_SYSTEM_PROMPT}\n\n# Your host's instructions\n${text}`;

test("a fae's own instructions, from a file read where setup was run, follow fae's prompt on every request; another fae keeps fae's prompt", async t => {
  const { llms, host } = await startDaemonWithLlms(t, ['openai', 'openai']);
  const [faeLlm, helperLlm] = llms;
  answerByWord(faeLlm, 'fae-model');
  answerByWord(helperLlm, 'helper-model');
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'helper.md'), `\n${INSTRUCTIONS}\n\n`);
  await setup(host, faeLlm.env());
  // npm runs scripts in the package directory and says where the user was in INIT_CWD.
  await setup(host, helperLlm.env({ FAE_NAME: 'helper', FAE_SYSTEM_PROMPT_FILE: 'helper.md', INIT_CWD: dir }));
  await E(host).send('helper', ['Answer the first message'], [], []);
  await waitFor(host, 'helper-model answers first', 'helper');
  await E(host).send('helper', ['Answer the second message'], [], []);
  await waitFor(host, 'helper-model answers second', 'helper');
  await E(host).send('fae', ['Answer the third message'], [], []);
  await waitFor(host, 'fae-model answers third', 'fae');
  t.deepEqual(systemPrompts(helperLlm), [withInstructions(INSTRUCTIONS), withInstructions(INSTRUCTIONS)]);
  t.deepEqual(systemPrompts(faeLlm), [FAE_SYSTEM_PROMPT]);

  // setup-replace takes new instructions, here from FAE_SYSTEM_PROMPT itself.
  await setupReplace(host, helperLlm.env({ FAE_NAME: 'helper', FAE_SYSTEM_PROMPT: 'Answer in Welsh.' }));
  await E(host).send('helper', ['Answer the fourth message'], [], []);
  await waitFor(host, 'helper-model answers fourth', 'helper');
  t.is(systemPrompts(helperLlm).at(-1), withInstructions('Answer in Welsh.'));
});

test('a prompt file that is missing, unreadable, empty or too long, or given with FAE_SYSTEM_PROMPT, stops every setup script first', async t => {
  const { llms, host } = await startDaemonWithLlms(t, ['openai']);
  const [llm] = llms;
  const dir = tempDir();
  const write = (name: string, content: string) => {
    fs.writeFileSync(path.join(dir, name), content);
    return path.join(dir, name);
  };
  const long = MAX_HOST_PROMPT_CHARS + 1;
  const cases: readonly [Record<string, string>, RegExp][] = [
    [{ FAE_SYSTEM_PROMPT_FILE: path.join(dir, 'nowhere') }, /^FAE_SYSTEM_PROMPT_FILE names ".*nowhere", which does not exist; write your instructions for fae into that file, or set FAE_SYSTEM_PROMPT_FILE to the file that holds it$/],
    [{ FAE_SYSTEM_PROMPT_FILE: dir }, /^FAE_SYSTEM_PROMPT_FILE names ".*", which cannot be read \(EISDIR\); it must be a file you can read that holds your instructions for fae$/],
    [{ FAE_SYSTEM_PROMPT_FILE: write('empty', '\n \n') }, /^FAE_SYSTEM_PROMPT_FILE names ".*empty", which is empty; write your instructions for fae into it, or leave FAE_SYSTEM_PROMPT_FILE unset$/],
    [
      { FAE_SYSTEM_PROMPT_FILE: write('long', 'x'.repeat(long)) },
      new RegExp(`^FAE_SYSTEM_PROMPT_FILE names ".*long", whose text is ${long} characters long; fae takes at most ${MAX_HOST_PROMPT_CHARS}, as it goes with every model call: shorten it$`),
    ],
    [{ FAE_SYSTEM_PROMPT: 'x'.repeat(long) }, new RegExp(`^FAE_SYSTEM_PROMPT is ${long} characters long; fae takes at most`)],
    [{ FAE_SYSTEM_PROMPT: 'Be brief.', FAE_SYSTEM_PROMPT_FILE: write('brief', 'Be brief.') }, /^both FAE_SYSTEM_PROMPT and FAE_SYSTEM_PROMPT_FILE are set; set only one of them$/],
  ];
  const before = await E(host).list();
  for (const script of [setup, setupWithTools, setupReplace]) {
    for (const [settings, message] of cases) {
      await t.throwsAsync(script(host, llm.env(settings)), { message });
    }
  }
  t.deepEqual(await E(host).list(), before);
});

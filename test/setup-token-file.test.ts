// The setup scripts take the API key from the environment or from a file
// named by LAL_AUTH_TOKEN_FILE, and hand it to fae as LAL_AUTH_TOKEN. A
// file they cannot use stops them before anything is created, without
// showing what it holds. A key given on the command line (-E) still works,
// with a warning that says where it has been written.
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { E } from '@endo/far';
import { setup } from '../setup.js';
import { setupReplace } from '../setup-replace.js';
import { setupWithTools } from '../setup-with-tools.js';
import { nextMessage, fromSelf } from './support/daemon.js';
import { startDaemonWithLlm } from './support/daemon-with-llms.js';
import { tempDirs } from './support/temp-dirs.js';
import type { LlmServer } from './support/llm-server.js';

// `any`: the daemon's objects are remote references.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

const tempDir = tempDirs('fae-token-');
const TOKEN = 'sk-ant-from-a-file-0123456789';
const OTHER_TOKEN = 'sk-ant-replaced-9876543210';

/** An invocation without -E pairs, whose warnings are kept. */
const quiet = () => {
  const warnings: string[] = [];
  return { warnings, invocation: { argv: ['node', 'endo', 'run', '--UNCONFINED', 'dist/setup.js'], warn: (text: string) => warnings.push(text) } };
};

/** The key the LLM server last received, from whichever header the SDK used. */
const keyOfLastRequest = (llm: LlmServer) => {
  const headers = llm.chatRequests.at(-1)?.headers ?? {};
  return headers['x-api-key'] ?? headers.authorization?.replace(/^Bearer /, '');
};

/** fae's answer to one message from the host. */
const ask = async (host: Far, text: string) => {
  const notOwn = fromSelf(host);
  const before = (await E(host).listMessages()).map((record: { number: bigint }) => record.number);
  const last = before.reduce((a: bigint, b: bigint) => (a > b ? a : b), -1n);
  await E(host).send('fae', [text], [], []);
  return nextMessage(host, async record => record.number > last && (await notOwn(record)), 20_000);
};

test('setup reads the key from LAL_AUTH_TOKEN_FILE (relative to where it was run) and fae uses it', async t => {
  const { llm, host } = await startDaemonWithLlm(t, 'anthropic');
  llm.otherwise({ text: 'answer' });
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'anthropic-key'), `${TOKEN}\n`, { mode: 0o600 });
  const { warnings, invocation } = quiet();
  // npm runs scripts in the package directory and says where the user was in INIT_CWD.
  const report = await setup(host, { LAL_HOST: llm.url, LAL_AUTH_TOKEN_FILE: 'anthropic-key', INIT_CWD: dir }, invocation);
  t.regex(report, /fae started with anthropic model/);
  t.false(report.includes(TOKEN));
  await ask(host, 'hello');
  t.is(keyOfLastRequest(llm), TOKEN);

  // setup-replace reads it the same way.
  fs.writeFileSync(path.join(dir, 'new-key'), OTHER_TOKEN);
  await setupReplace(host, { LAL_HOST: llm.url, LAL_AUTH_TOKEN_FILE: path.join(dir, 'new-key') }, invocation);
  await ask(host, 'again');
  t.is(keyOfLastRequest(llm), OTHER_TOKEN);
  t.deepEqual(warnings, []);
});

test('a token file that is missing, unreadable, empty or not a key alone stops every setup script first, quoting no content', async t => {
  const { llm, host } = await startDaemonWithLlm(t, 'anthropic');
  const dir = tempDir();
  const write = (name: string, content: string) => {
    fs.writeFileSync(path.join(dir, name), content);
    return path.join(dir, name);
  };
  const cases: readonly [string, RegExp][] = [
    [path.join(dir, 'nowhere'), /^LAL_AUTH_TOKEN_FILE names ".*nowhere", which does not exist; write your API key into that file/],
    [dir, /^LAL_AUTH_TOKEN_FILE names ".*", which cannot be read \(EISDIR\); it must be a file you can read/],
    [write('empty', ' \n\n'), /^LAL_AUTH_TOKEN_FILE names ".*empty", which is empty; write your API key into it/],
    [write('dotenv', `LAL_AUTH_TOKEN=${TOKEN}\nLAL_HOST=x\n`), /^LAL_AUTH_TOKEN_FILE names ".*dotenv", which holds more than one word; it must hold your API key alone/],
  ];
  const { invocation } = quiet();
  for (const script of [setup, setupWithTools, setupReplace]) {
    for (const [file, message] of cases) {
      const error = await t.throwsAsync(script(host, { LAL_HOST: llm.url, LAL_AUTH_TOKEN_FILE: file }, invocation), { message });
      t.false(error.message.includes(TOKEN));
    }
  }
  await t.throwsAsync(
    setup(host, { LAL_HOST: llm.url, LAL_AUTH_TOKEN: TOKEN, LAL_AUTH_TOKEN_FILE: write('key', TOKEN) }, invocation),
    { message: 'both LAL_AUTH_TOKEN and LAL_AUTH_TOKEN_FILE are set; set only one of them (LAL_AUTH_TOKEN_FILE is the safer)' },
  );
  for (const name of ['fae', 'controller-for-fae', 'greet-tool']) t.false(await E(host).has(name));
});

test('a key given with -E works, with a warning naming where npm or the shell wrote it, never the key', async t => {
  const { llm, host } = await startDaemonWithLlm(t, 'anthropic');
  const runs: readonly { readonly argv: readonly string[]; readonly env: Record<string, string>; readonly where: RegExp }[] = [
    { argv: ['-E', `LAL_AUTH_TOKEN=${TOKEN}`], env: { npm_lifecycle_event: 'setup' }, where: /npm echoed above, npm's debug log under ~\/\.npm\/_logs\// },
    {
      argv: [`--env=LAL_AUTH_TOKEN=${TOKEN}`],
      env: { npm_lifecycle_event: 'setup', npm_config_cache: '/srv/npm-cache' },
      where: /npm's debug log under \/srv\/npm-cache\/_logs\//,
    },
    { argv: [`-ELAL_AUTH_TOKEN=${TOKEN}`], env: {}, where: /written to your shell history, if you typed it there, and the process list/ },
  ];
  for (const { argv, env, where } of runs) {
    const warnings: string[] = [];
    const invocation = {
      argv: ['node', 'endo', 'run', '--UNCONFINED', 'dist/setup.js', '--powers', 'AGENT', '-E', `LAL_HOST=${llm.url}`, ...argv],
      warn: (text: string) => warnings.push(text),
    };
    const report = await setup(host, { LAL_HOST: llm.url, LAL_AUTH_TOKEN: TOKEN, ...env }, invocation);
    t.regex(report, /^setup:/);
    t.is(warnings.length, 1);
    t.regex(warnings[0], /^warning: LAL_AUTH_TOKEN was given on the command line \(-E\), so the API key has been written to /);
    t.regex(warnings[0], where);
    t.regex(warnings[0], /-E LAL_AUTH_TOKEN_FILE=<that file>/);
    t.false(warnings[0].includes(TOKEN));
  }
  // From the environment, or an empty -E (an unset shell variable): no warning.
  const { warnings, invocation } = quiet();
  await setup(host, { LAL_HOST: llm.url, LAL_AUTH_TOKEN: TOKEN }, invocation);
  await setup(host, { LAL_HOST: llm.url, LAL_AUTH_TOKEN: TOKEN }, { ...invocation, argv: [...invocation.argv, '-E', 'LAL_AUTH_TOKEN='] });
  t.deepEqual(warnings, []);
});

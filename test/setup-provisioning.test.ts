// The shared provisioning helpers: what reaches a caplet's env, and where
// the caplet modules are found.
import test from 'ava';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  EXAMPLE_TOOLS,
  FAE_ENV_NAMES,
  FS_TOOLS,
  builtModuleUrl,
  pickEnv,
  readFaeSetupConfig,
} from '../src/provisioning/provisioning.js';

test('the env fae receives holds only set, non-blank strings of known settings', t => {
  const config = readFaeSetupConfig({
    LAL_HOST: 'http://localhost:11434/v1',
    LAL_MODEL: 'qwen3',
    LAL_AUTH_TOKEN: undefined,
    LAL_PROVIDER: '',
    LAL_MAX_TOKENS: '2048',
    FAE_DEBUG: '   ',
    HOME: '/home/someone',
    FAE_CWD: '/tmp',
  });
  t.deepEqual(config.env, {
    LAL_HOST: 'http://localhost:11434/v1',
    LAL_MODEL: 'qwen3',
    LAL_MAX_TOKENS: '2048',
  });
  t.true(Object.values(config.env).every(value => typeof value === 'string'));
  t.true(Object.isFrozen(config.env));
  t.is(config.summary, 'openai model "qwen3" at http://localhost:11434/v1');
});

test('the token is forwarded to fae but never appears in the summary', t => {
  const config = readFaeSetupConfig({
    LAL_HOST: 'https://api.anthropic.com',
    LAL_AUTH_TOKEN: 'sk-ant-secret-value',
  });
  t.is(config.env.LAL_AUTH_TOKEN, 'sk-ant-secret-value');
  t.false(config.summary.includes('secret'));
});

test('pickEnv keeps only the names asked for', t => {
  t.deepEqual(pickEnv({ A: 'a', B: undefined, C: '' }, ['A', 'B', 'C', 'D']), { A: 'a' });
});

test('caplet specifiers are absolute file: URLs of built modules', t => {
  for (const module of ['agent.js', ...EXAMPLE_TOOLS.map(m => m.module), ...FS_TOOLS.map(m => m.module)]) {
    const url = builtModuleUrl(module);
    t.true(url.startsWith('file:///'), url);
    t.true(url.endsWith(`/dist/${module}`), url);
    t.true(fs.existsSync(fileURLToPath(url)), url);
  }
  t.throws(() => builtModuleUrl('tools/nope.js'), {
    message: /^".*\/dist\/tools\/nope\.js" does not exist; run "npm run build" first$/,
  });
});

test('every setting docs/configuration.md documents reaches fae, but those the scripts read themselves', t => {
  const reference = fs.readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
  const documented = [...reference.matchAll(/^\| `((?:LAL|FAE)_[A-Z_]+)`/gm)].map(match => match[1]);
  t.true(documented.length > 20);
  const readByScripts = ['LAL_AUTH_TOKEN_FILE', 'FAE_SYSTEM_PROMPT_FILE', 'FAE_CWD'];
  t.deepEqual(
    documented.filter(name => !readByScripts.includes(name) && !FAE_ENV_NAMES.includes(name)),
    [],
  );
});

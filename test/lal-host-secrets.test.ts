// A LAL_HOST may carry a key in its query (`?key=…`); one that carries a
// password (`https://user:pass@host`) is refused, as no SDK could use it.
// Wherever the URL is shown (a settings error, the setup report, the
// chat's reachability paragraph) it is shown redacted.
import test from 'ava';
import { describeProviderConfig, readProviderConfig } from '../providers/config.js';
import { readFaeSetupConfig } from '../src/provisioning/provisioning.js';
import { checkLlmReachable } from '../src/chat/reachability.js';
import { closedLoopbackUrl } from './support/llm-server.js';

const USER = 'fae-user-name';
const PASSWORD = 'pw-secret-1618033';
const QUERY_KEY = 'query-secret-14142135';
const shows = (text: string) => [USER, PASSWORD, QUERY_KEY].filter(secret => text.includes(secret));

test('settings errors quote LAL_HOST without its user info or query values', t => {
  const cases = [
    `ftp://${USER}:${PASSWORD}@llm.example/?key=${QUERY_KEY}`,
    `${USER}:${PASSWORD}@llm.example?key=${QUERY_KEY}`,
    `https://${USER}:${PASSWORD}@api.anthropic.com/?key=${QUERY_KEY}`,
  ];
  for (const host of cases) {
    const error = t.throws(() => readProviderConfig({ LAL_HOST: host }));
    t.deepEqual(shows(error.message), [], error.message);
    t.regex(error.message, /LAL_HOST|LAL_AUTH_TOKEN/);
  }
  t.is(
    t.throws(() => readProviderConfig({ LAL_HOST: cases[2] })).message,
    'LAL_HOST must not carry a user name or password ("https://[redacted]@api.anthropic.com/?key=[redacted]"); give the API key as LAL_AUTH_TOKEN instead',
  );
  t.is(
    t.throws(() => readProviderConfig({ LAL_HOST: `https://api.anthropic.com/?key=${QUERY_KEY}` })).message,
    'LAL_AUTH_TOKEN is required for Anthropic (LAL_HOST "https://api.anthropic.com/?key=[redacted]"); set it to your API key',
  );
});

test('the setup report and the chat name the LLM at a redacted LAL_HOST', t => {
  const host = `https://llm.example/v1?api-key=${QUERY_KEY}`;
  const expected = 'openai model "m" at https://llm.example/v1?api-key=[redacted]';
  t.is(describeProviderConfig(readProviderConfig({ LAL_HOST: host, LAL_MODEL: 'm' })), expected);
  t.is(readFaeSetupConfig({ LAL_HOST: host, LAL_MODEL: 'm' }).summary, expected);
});

test('the reachability check never shows LAL_HOST\'s query values', async t => {
  // Nothing listens on it.
  const host = `${await closedLoopbackUrl('openai')}?key=${QUERY_KEY}`;
  const result = await checkLlmReachable(readProviderConfig({ LAL_HOST: host }));
  t.false(result.ok);
  if (!result.ok) {
    t.deepEqual(shows(result.paragraph), [], result.paragraph);
    t.regex(result.paragraph, /at http:\/\/\S*\[redacted\]/);
  }
});

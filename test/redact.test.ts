import test from 'ava';
import { makeEnvRedactor, makeRedactor, redactUrl } from '../src/logging/redact.js';

test('secret values are blanked wherever they appear', t => {
  const redact = makeEnvRedactor({ LAL_AUTH_TOKEN: 'tok-123456789', LAL_HOST: 'http://h' });
  t.is(redact('failed with tok-123456789 at http://h'), 'failed with [redacted] at http://h');
});

test('credential shapes are blanked even when the value is unknown', t => {
  const redact = makeRedactor([]);
  t.is(redact('Authorization: Bearer abcdefghijkl'), 'Authorization: Bearer [redacted]');
  t.is(redact('key sk-ant-abcdefghijklmnop here'), 'key [redacted] here');
  t.is(redact('{"x-api-key": "abcdefghijkl"}'), '{"x-api-key": "[redacted]"}');
});

test('text without secrets is unchanged', t => {
  t.is(makeEnvRedactor({})('nothing to hide'), 'nothing to hide');
});

test('the redactor knows the secrets inside LAL_HOST: user info, password and query keys, however spelled', t => {
  const redact = makeEnvRedactor({
    LAL_HOST: 'https://fae-user:pa%24%24-word-42@llm.example/v1?api-key=k%2By%2F0123456789&format=json',
  });
  t.is(redact('GET https://fae-user:pa%24%24-word-42@llm.example/v1'), 'GET https://[redacted]@llm.example/v1');
  t.is(redact('the password pa$$-word-42 and pa%24%24-word-42'), 'the password [redacted] and [redacted]');
  t.is(redact('key k+y/0123456789, k%2By%2F0123456789, k%2By%2F0123456789%2Fchat'), 'key [redacted], [redacted], [redacted]%2Fchat');
  // A short query value is a setting, not a key: mail may say "json".
  t.is(redact('answer in json'), 'answer in json');
});

test('a user name alone before the host is the credential', t => {
  const redact = makeEnvRedactor({ LAL_HOST: 'https://ghp_tokenvalue123@llm.example/v1' });
  t.is(redact('token ghp_tokenvalue123'), 'token [redacted]');
});

test('a password in any URL is blanked even when its value is unknown', t => {
  t.is(makeRedactor([])('fetch http://someone:hunter2@10.0.0.1/x failed'), 'fetch http://[redacted]@10.0.0.1/x failed');
  t.is(makeRedactor([])('mail ada@example.com, see https://example.com/@ada'), 'mail ada@example.com, see https://example.com/@ada');
});

test('a secret that contains another is blanked whole', t => {
  t.is(makeRedactor(['abcd', 'abcdefgh'])('x abcdefgh y abcd'), 'x [redacted] y [redacted]');
});

test('redactUrl shows a URL with its user info and query values blanked, the rest as written', t => {
  t.is(redactUrl('https://u:p@llm.example:8443/v1?key=abc&api-version=2024&flag#top'), 'https://[redacted]@llm.example:8443/v1?key=[redacted]&api-version=[redacted]&flag#top');
  t.is(redactUrl('http://localhost:11434'), 'http://localhost:11434');
  t.is(redactUrl('http://h/v1/@x?empty='), 'http://h/v1/@x?empty=');
  // Not a URL fae can use, but it may be quoted in an error all the same.
  t.is(redactUrl('user:pw@localhost:11434?token=x'), '[redacted]@localhost:11434?token=[redacted]');
});

// The chat's parts that need no child process: reading typed lines, the
// command line, the reachability check against real loopback sockets, the
// bookkeeping of unanswered messages, the status line fed by fae's events,
// and how revisions of a message are shown.
import test from 'ava';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseLine, resolveToolName } from '../src/chat/commands.js';
import { makeProgress } from '../src/chat/progress.js';
import { makeRevisions } from '../src/chat/mail-feed.js';
import { describeInbox } from '../src/chat/inbox-view.js';
import { describeUsage } from '../src/usage/usage-view.js';
import type { MailView } from '../src/chat/mail-feed.js';
import { DEFAULT_CHAT_DIALECT, parseChatOptions } from '../src/chat/options.js';
import { checkLlmReachable } from '../src/chat/reachability.js';
import { makePendingAnswers } from '../src/chat/pending.js';
import { readProviderConfig } from '../providers/config.js';
import { closedLoopbackUrl, startLlmServer } from './support/llm-server.js';

test('typed lines: messages, commands with and without arguments, mistakes', t => {
  t.deepEqual(parseLine('  hello fae  '), { kind: 'message', text: 'hello fae' });
  t.deepEqual(parseLine('   '), { kind: 'empty' });
  t.deepEqual(parseLine('/help'), { kind: 'help' });
  t.deepEqual(parseLine('/QUIT'), { kind: 'quit' });
  t.deepEqual(parseLine('/exit'), { kind: 'quit' });
  // fae's own commands are mailed to fae, which answers them itself (its notices name /forget).
  t.deepEqual(parseLine('/forget'), { kind: 'message', text: '/forget' });
  t.deepEqual(parseLine('/name unnamed-1a2b3c4d alice'), { kind: 'message', text: '/name unnamed-1a2b3c4d alice' });
  t.deepEqual(parseLine('/status'), { kind: 'message', text: '/status' });
  t.deepEqual(parseLine('/give greet'), { kind: 'give', tool: 'greet', text: undefined });
  t.deepEqual(parseLine('/give  greet   use it  well '), { kind: 'give', tool: 'greet', text: 'use it  well' });
  t.like(parseLine('/give'), { kind: 'invalid' });
  t.like(parseLine('/list everything'), { kind: 'invalid', problem: '/list takes no arguments' });
  t.deepEqual(parseLine('/inbox'), { kind: 'inbox' });
  t.deepEqual(parseLine('/inbox 12'), { kind: 'inbox', number: 12n });
  t.deepEqual(parseLine('/inbox #3'), { kind: 'inbox', number: 3n });
  t.like(parseLine('/inbox all'), { kind: 'invalid', problem: '/inbox takes a message number, as in "/inbox 3", not "all"' });
  t.like(parseLine('/nope'), { kind: 'invalid', problem: 'Unknown command "/nope"; /help lists the commands' });
});

test('/give accepts a pet name or its short form', t => {
  t.is(resolveToolName('greet'), 'greet-tool');
  t.is(resolveToolName('greet-tool'), 'greet-tool');
  t.is(resolveToolName('read-file'), 'read-file');
  t.is(resolveToolName('hammer'), undefined);
});

test("the status line follows fae's events while something is unanswered", t => {
  const statuses: (string | undefined)[] = [];
  const progress = makeProgress(status => statuses.push(status));
  progress.event({ type: 'tool-called', message: 1n, tool: 'list' });
  t.deepEqual(statuses, [], 'nothing is shown while nothing is owed');
  progress.setBusy(true);
  progress.event({ type: 'turn-started', message: 2n, from: 'HOST' });
  progress.event({ type: 'tool-called', message: 2n, tool: 'greet' });
  progress.event({ type: 'tool-called', message: 2n, tool: 'greet' });
  progress.event({ type: 'progress', message: 2n, text: 'Working on it…\ncalling math' });
  progress.unfinishedReply('Working on it… calling greet');
  progress.replyShown();
  progress.event({ type: 'tool-called', message: 2n, tool: 'math' });
  progress.event({ type: 'answered', message: 2n });
  progress.event({ type: 'turn-done', message: 2n, messageId: 'm2' });
  progress.setBusy(false);
  t.deepEqual(statuses, [
    'fae is thinking',
    'fae is calling greet',
    'fae is calling greet',
    'fae: Working on it… calling math',
    'fae: Working on it… calling greet',
    'fae is thinking',
    'fae is calling math',
    'fae is thinking',
    undefined,
  ]);
});

test('revisions: a repeat is skipped, an unfinished one is progress, its finished one the answer, a later one an edit', t => {
  const { show } = makeRevisions();
  const at = (second: number) => `2026-08-01T10:00:${String(second).padStart(2, '0')}.000Z`;
  t.is(show({ number: 4n, date: at(0), done: true }, 'Fae agent ready.'), 'mail');
  t.is(show({ number: 4n, date: at(0), done: true }, 'Fae agent ready.'), 'skip', 'the replay and the live feed both hold it');

  t.is(show({ number: 6n, date: at(1), done: true }, 'Working on it…'), 'progress', "fae's placeholder arrives done, and is progress");
  t.is(show({ number: 6n, date: at(2), done: false }, 'Working on it… calling greet'), 'progress');
  t.is(show({ number: 6n, date: at(3), done: false }, 'Working on it… calling math'), 'progress');
  t.is(show({ number: 6n, date: at(2), done: false }, 'Working on it… calling greet'), 'skip', 'an older revision, late');
  t.is(show({ number: 6n, date: at(4), done: true }, 'Bonjour, Ada!'), 'mail', 'the answer is printed plainly');
  t.is(show({ number: 6n, date: at(4), done: true }, 'Bonjour, Ada!'), 'skip', 'and once');
  t.is(show({ number: 6n, date: at(5), done: true }, 'Bonjour, Ada !'), 'edited');
  t.is(show({ number: 6n, date: at(6), done: false }, 'Looking again…'), 'progress');
  t.is(show({ number: 6n, date: at(7), done: true }, 'Bonjour, Ada.'), 'edited', 'an answer was printed before');

  t.is(show({ number: 8n, date: at(8), done: false }, 'Working on it…'), 'progress', 'first seen unfinished');
  t.is(show({ number: 8n, date: at(9), done: true }, 'Done.'), 'mail');
});

test('the command line: --root DIR, --root=DIR, --dialect, --verbose, and refusals', t => {
  t.deepEqual(parseChatOptions([]), { root: undefined, dialect: DEFAULT_CHAT_DIALECT, verbose: false, help: false });
  t.deepEqual(parseChatOptions(['--root', 'here', '--verbose']), {
    root: 'here',
    dialect: DEFAULT_CHAT_DIALECT,
    verbose: true,
    help: false,
  });
  t.deepEqual(parseChatOptions(['--root=there']), { root: 'there', dialect: DEFAULT_CHAT_DIALECT, verbose: false, help: false });
  t.is(parseChatOptions(['--dialect', 'feb']).dialect, 'feb');
  t.is(parseChatOptions(['--dialect=may']).dialect, 'may');
  t.throws(() => parseChatOptions(['--dialect', 'june']), { message: '--dialect needs one of feb, may or aug, not "june"' });
  t.throws(() => parseChatOptions(['--dialect']), { message: '--dialect needs one of feb, may or aug, not ""' });
  t.throws(() => parseChatOptions(['--root']), { message: /--root needs a directory/ });
  t.throws(() => parseChatOptions(['--root', '--verbose']), { message: /--root needs a directory/ });
  t.throws(() => parseChatOptions(['hello']), { message: /Unknown argument "hello"/ });
});

test('reachability: each kind of server is asked for its model list', async t => {
  for (const kind of ['ollama', 'openai', 'anthropic'] as const) {
    const server = await startLlmServer(kind);
    t.teardown(() => server.close());
    const result = await checkLlmReachable(readProviderConfig(server.env({ LAL_MODEL: 'test-model' })));
    t.true(result.ok, kind);
    t.is(result.ok && result.warning, undefined, kind);
    t.deepEqual(
      server.requests.map(request => `${request.method} ${request.path}`),
      [{ ollama: 'GET /api/tags', openai: 'GET /v1/models', anthropic: 'GET /anthropic.com/v1/models' }[kind]],
      kind,
    );
  }
});

test('reachability: a closed port is unreachable, at once', async t => {
  const url = await closedLoopbackUrl('ollama');
  const result = await checkLlmReachable(readProviderConfig({ LAL_HOST: url }));
  t.like(result, { ok: false, problem: 'unreachable' });
  if (!result.ok) {
    t.true(result.paragraph.startsWith(`fae cannot reach the LLM at ${url} (provider Ollama, model "qwen3"; tried GET ${url}/api/tags): connection refused`));
  }
});

test('reachability: a server that never answers is given up on after the time limit', async t => {
  // Accepts the connection and then says nothing, like a wedged server.
  const server = createServer(() => {});
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>(resolve => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  const result = await checkLlmReachable(readProviderConfig({ LAL_HOST: `http://127.0.0.1:${port}/v1` }), {
    timeoutMs: 300,
  });
  t.like(result, { ok: false, problem: 'unreachable' });
  if (!result.ok) t.regex(result.paragraph, /: no answer within 0\.3 s\. To use another LLM/);
});

test('unanswered messages: counted from the send, finished by messageId, and given up on after silence', async t => {
  let clock = 0;
  const changes: boolean[] = [];
  const pending = makePendingAnswers({ now: () => clock, pollMs: 5, onBusyChange: busy => changes.push(busy) });
  t.false(pending.busy());
  pending.sending();
  t.true(pending.busy());
  pending.ownCopy('m1');
  pending.done('other');
  t.true(pending.busy());
  pending.done('m1');
  t.false(pending.busy());
  t.is(await pending.whenSettled(1000), 'answered');

  const failed = pending.sending();
  failed();
  t.false(pending.busy(), 'a send that failed is owed nothing');

  pending.sending();
  pending.ownCopy('m2');
  const settled = pending.whenSettled(1000);
  clock = 999;
  pending.activity();
  clock = 1998;
  await new Promise(resolve => setTimeout(resolve, 20));
  clock = 1999;
  t.is(await settled, 'silent');
  t.deepEqual(changes, [true, false, true, false, true]);

  pending.faeStopped();
  t.is(await pending.whenSettled(1000), 'stopped');
  pending.clear();
  t.false(pending.busy());
});

test('/inbox cuts long messages and says how to see one whole', t => {
  const long = `${'a'.repeat(250)}\n${'b'.repeat(4000)}`;
  const mail: MailView[] = [
    { number: 1n, from: 'fae', to: 'you', text: 'Fae agent ready.' },
    { number: 2n, from: 'you', to: 'fae', text: 'read the log' },
    { number: 3n, from: 'fae', to: 'you', text: long },
    { number: 4n, from: 'fae', to: 'you', text: Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n') },
  ];
  const lines = describeInbox(mail).split('\n');
  t.is(lines[0], '#1 fae: Fae agent ready.');
  t.is(lines[1], '#2 you → fae: read the log');
  t.is(lines[2], `#3 fae: ${'a'.repeat(250)}`);
  t.is(lines[3], `${'b'.repeat(49)}… (${long.length - 300} more characters; /inbox 3 shows it whole)`);
  t.true(describeInbox(mail).includes('line 5… ('), 'many short lines are cut too');
  t.false(describeInbox(mail).includes('line 6'));
  t.is(describeInbox(mail, 3n), `#3 fae: ${long}`);
  t.is(describeInbox(mail, 9n), 'There is no message #9 in your inbox (it holds #1, #2, #3, #4)');
  t.is(describeInbox([]), '(your inbox is empty)');
});

test('reachability: an Ollama URL whose /api/tags is 404 is not an Ollama server', async t => {
  // An OpenAI-compatible server at its root: it has no /api/tags.
  const server = await startLlmServer('openai');
  t.teardown(() => server.close());
  const host = `http://127.0.0.1:${server.port}`;
  const result = await checkLlmReachable(readProviderConfig({ LAL_HOST: host, LAL_PROVIDER: 'ollama' }));
  t.like(result, { ok: false, problem: 'not-ollama' });
  if (!result.ok) {
    t.true(result.paragraph.startsWith(`The server at ${host} (provider Ollama`), result.paragraph);
    t.regex(result.paragraph, /answered HTTP 404: it is not an Ollama server\. If it is OpenAI-compatible .* set LAL_HOST to its URL ending in \/v1/);
  }
});

test("unanswered messages: fae's turn-done settles a message, before or after the host's own copy", async t => {
  const changes: boolean[] = [];
  const pending = makePendingAnswers({ pollMs: 5, onBusyChange: busy => changes.push(busy) });
  pending.sending();
  pending.ownCopy('m1');
  pending.done('m1');
  t.false(pending.busy());
  t.is(await pending.whenSettled(1000), 'answered');
  // fae may be done before the host has seen its own copy.
  pending.sending();
  pending.done('m2');
  t.true(pending.busy());
  pending.ownCopy('m2');
  t.false(pending.busy());
  t.deepEqual(changes, [true, false, true, false]);
});

test('/usage shows what fae reports of its model calls: in all, per model, per correspondent and the others', t => {
  t.deepEqual(parseLine('/usage'), { kind: 'usage' });
  t.deepEqual(parseLine('/usage now'), { kind: 'invalid', problem: '/usage takes no arguments' });
  t.is(describeUsage(undefined), 'fae has no usage to report yet.');
  const shown = (requests: number, cost?: number) => ({
    requests,
    inputTokens: requests * 1000,
    cachedInputTokens: requests * 600,
    outputTokens: requests * 50,
    ...(cost === undefined ? {} : { estimatedCostUsd: cost }),
  });
  t.is(
    describeUsage({
      since: '2026-11-25T09:41:07.123Z',
      total: shown(3, 0.012),
      models: [{ model: 'm', ...shown(3, 0.012) }],
      correspondents: [{ name: 'HOST', ...shown(2) }, { name: 'unnamed-1a2b3c4d', ...shown(1) }],
      others: { correspondents: 0, ...shown(0) },
    }, 'HOST'),
    [
      "What fae's model calls have cost since 2026-11-25 09:41 UTC:",
      '  in all: 3 requests, 3,000 tokens in (1,800 cached), 150 out, about $0.0120',
      '  model m: 3 requests, 3,000 tokens in (1,800 cached), 150 out, about $0.0120',
      '  you: 2 requests, 2,000 tokens in (1,200 cached), 100 out',
      '  unnamed-1a2b3c4d: 1 request, 1,000 tokens in (600 cached), 50 out',
    ].join('\n'),
  );
});

import test from 'ava';
import { readApprovalPolicy } from '../src/agent/authority/approval-policy.js';
import { MAX_HOST_PROMPT_CHARS, readFaeConfig } from '../src/agent/config.js';

test('defaults', t => {
  t.deepEqual(readFaeConfig({}), {
    name: 'fae',
    hostPrompt: undefined,
    maxIterations: 30,
    toolTimeoutMs: 60000,
    probeTimeoutMs: 5000,
    concurrentTurns: 4,
    progressAfterMs: 1500,
    editableTurns: 2,
    editableMs: 600000,
    stallMs: 30000,
    builtIns: ['directory', 'mail', 'inspection', 'conversations'],
    budgetTokens: undefined,
    budgetHost: false,
    turnsPerMinute: 8,
    pauseMs: 600000,
    parallelTools: true,
    autoDismiss: true,
    debug: false,
    maxTranscript: 1000,
    heldConversations: 64,
    maxToolResultChars: 50_000,
    toolDiscovery: 'follow',
    prices: undefined,
    contextTokens: 32000,
    toolTokens: 3000,
    maxMessages: undefined,
    approvalPolicy: readApprovalPolicy('default'),
    approvalTimeoutMs: 600_000,
    evaluate: 'off',
  });
});

test('settings are read', t => {
  const config = readFaeConfig({
    FAE_MAX_ITERATIONS: '3',
    FAE_TOOL_TIMEOUT_MS: '250',
    FAE_PARALLEL_TOOLS: '0',
    FAE_CONCURRENT_TURNS: '2',
    FAE_DEBUG: '1',
    FAE_TOOL_DISCOVERY: ' List ',
  });
  t.is(config.maxIterations, 3);
  t.is(config.toolTimeoutMs, 250);
  t.false(config.parallelTools);
  t.is(config.concurrentTurns, 2);
  t.true(config.debug);
  t.is(config.toolDiscovery, 'list');
  t.true(Object.isFrozen(config));
});

test('bad values are clear errors', t => {
  t.throws(() => readFaeConfig({ FAE_MAX_ITERATIONS: 'many' }), {
    message: 'FAE_MAX_ITERATIONS must be a positive whole number, not "many"',
  });
  t.throws(() => readFaeConfig({ FAE_TOOL_TIMEOUT_MS: '-5' }), { message: /FAE_TOOL_TIMEOUT_MS/ });
  t.throws(() => readFaeConfig({ FAE_PARALLEL_TOOLS: 'maybe' }), {
    message: 'FAE_PARALLEL_TOOLS must be 1 or 0, not "maybe"',
  });
  t.throws(() => readFaeConfig({ FAE_TOOL_DISCOVERY: 'poll' }), {
    message: 'FAE_TOOL_DISCOVERY must be follow or list, not "poll"',
  });
});

test("FAE_NAME names this fae; it must be a pet name on every daemon", t => {
  t.is(readFaeConfig({ FAE_NAME: ' helper ' }).name, 'helper');
  t.is(readFaeConfig({ FAE_NAME: '' }).name, 'fae');
  for (const bad of ['Helper', 'my helper', '@helper', 'a.b', '-x', 'x'.repeat(129)]) {
    t.throws(() => readFaeConfig({ FAE_NAME: bad }), {
      message: `FAE_NAME must be a pet name (lowercase letters, digits and "-", beginning with a letter or digit), not ${JSON.stringify(bad)}`,
    });
  }
});

test("FAE_SYSTEM_PROMPT is the host's text without the blank lines around it, bounded", t => {
  t.is(readFaeConfig({ FAE_SYSTEM_PROMPT: '\n  Answer in French.\n\n' }).hostPrompt, 'Answer in French.');
  t.is(readFaeConfig({ FAE_SYSTEM_PROMPT: ' \n ' }).hostPrompt, undefined);
  t.is(readFaeConfig({ FAE_SYSTEM_PROMPT: 'x'.repeat(MAX_HOST_PROMPT_CHARS) }).hostPrompt?.length, MAX_HOST_PROMPT_CHARS);
  t.throws(() => readFaeConfig({ FAE_SYSTEM_PROMPT: 'x'.repeat(MAX_HOST_PROMPT_CHARS + 1) }), {
    message: `FAE_SYSTEM_PROMPT is ${MAX_HOST_PROMPT_CHARS + 1} characters long; fae takes at most ${MAX_HOST_PROMPT_CHARS}, as it goes with every model call: shorten it`,
  });
});

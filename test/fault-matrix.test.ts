// The fault matrix (issue 14): the faults a user meets, from the LLM (each
// provider, over real loopback HTTP), from tools, from the daemon, from the
// mail and from the lifecycle. Every case ends with the same checks
// (support/fault-world.ts): fae keeps serving, the sender was told when its
// message could not be answered, no message is answered twice or lost, and
// the canary secret appears in no mail, log line or LLM request. Timeouts
// and retries are set short through the environment, and retry waits are
// skipped, so the whole file runs in seconds.
import test from 'ava';
import { E, Far } from '@endo/far';
import { makeExo } from '@endo/exo';
import { makePromiseKit } from '@endo/promise-kit';
import { createProvider, type Provider, type ProviderKind } from '../providers/index.js';
import { FaeToolInterface } from '../src/tool-kit/fae-tool-interface.js';
import { closedLoopbackUrl, startLlmServer, TEST_TOKEN, type LlmServer } from './support/llm-server.js';
import { makeScriptedProvider, type RecordedRequest, type ScriptedReply } from './support/scripted-provider.js';
import { checkInvariants, startWorld } from './support/fault-world.js';
import { faultyPowers, makeFaults, type Faults } from './support/faulty-powers.js';
import { makeToolCaplet } from './support/tool-caplets.js';
import { specialNames, type LocalDaemon } from './support/daemon.js';

const KINDS: readonly ProviderKind[] = ['openai', 'anthropic', 'ollama'];
const CANARY = TEST_TOKEN;
// The host asks, so it reads the operator's detail as the answer.
const SORRY = /^Sorry, I could not answer your message "[^"]*": /;
// Short bounds, but not so short that a loaded machine trips them: the
// cases that test a timeout set their own.
const FAST = { LAL_TIMEOUT_MS: '30000', LAL_MAX_RETRIES: '1', FAE_TOOL_TIMEOUT_MS: '30000' };

// ---------------------------------------------------------------- the LLM

interface LlmCase {
  readonly fault: string;
  /** Scripts the fault on the server (null: no server listens at all). */
  readonly script: ((server: LlmServer) => void) | null;
  /** What the sender of the first message is told. */
  readonly told: RegExp;
  /** Retry waits the provider must have asked for. */
  readonly waits?: readonly number[];
  /**
   * Settings for the first model call only (the faulty one): later calls
   * keep the usual bounds, so that on a loaded machine the probe is not
   * cut short by a bound meant for the fault.
   */
  readonly faultEnv?: Readonly<Record<string, string>>;
}

const LLM_CASES: readonly LlmCase[] = [
  { fault: 'refused connection', script: null, told: /cannot reach the LLM at http:\/\/127\.0\.0\.1:\d+/ },
  {
    fault: 'reset before the answer (a kept-alive socket closed)',
    script: s => s.resetBeforeAnswer().reply({ text: 'answered on a new connection' }),
    told: /^answered on a new connection$/,
    waits: [375],
  },
  { fault: 'reset mid-body', script: s => s.resetMidBody(), told: /the connection to the LLM at http:\/\/127\.0\.0\.1:\d+\S* broke before its answer was complete/ },
  {
    fault: 'timeout',
    // Every request about the first message hangs: on a loaded machine the
    // client may give up before the server has even read the request.
    script: s =>
      s.otherwise(request =>
        request.text.includes('still there?') ? { text: 'pong' } : new Promise(() => {}),
      ),
    told: /had not begun its answer after 0\.5 s.*raise LAL_FIRST_TOKEN_MS/,
    faultEnv: { LAL_FIRST_TOKEN_MS: '500', LAL_MAX_RETRIES: '0' },
  },
  { fault: '401', script: s => s.fail(401, `invalid x-api-key ${CANARY}`), told: /denied access \(HTTP 401: invalid x-api-key \[redacted\]\)/ },
  {
    fault: '429 with retry-after',
    script: s => s.fail(429, 'slow down', { 'retry-after': '1' }).reply({ text: 'answered after the wait' }),
    told: /^answered after the wait$/,
    waits: [1000],
  },
  {
    fault: '429 without retry-after',
    script: s => s.fail(429, 'slow down').fail(429, 'slow down'),
    told: /rate limiting requests \(HTTP 429: slow down\); gave up after 1 retries/,
    waits: [375],
  },
  { fault: '5xx', script: s => s.fail(503, 'overloaded').fail(502, 'bad gateway'), told: /failed with HTTP 502: bad gateway; gave up after 1 retries/ },
  {
    fault: 'malformed 200 (an HTML page)',
    script: s => s.raw(`<html><body>Log in to continue (${CANARY})</body></html>`),
    told: /answered POST http:\/\/127\.0\.0\.1:\d+\/\S+ with something that is not .* content-type text\/html, starting "<html><body>Log in to continue \(\[redacted\]\)/,
  },
  {
    fault: 'wrong-shaped 200 (JSON)',
    script: s => s.raw(JSON.stringify({ result: 'ok', answer: 42 }), 'application/json'),
    told: /with something that is not .*content-type application\/json, starting "\{\\"result\\":\\"ok\\",\\"answer\\":42\}"/,
  },
];

for (const kind of KINDS) {
  for (const { fault, script, told, waits, faultEnv } of LLM_CASES) {
    test(`LLM ${kind}: ${fault}`, async t => {
      const server = await startLlmServer(kind);
      t.teardown(() => server.close());
      const url = script === null ? await closedLoopbackUrl(kind) : server.url;
      server.otherwise({ text: 'pong' });
      script?.(server);
      const sleeps: number[] = [];
      const env = { ...server.env(FAST), LAL_HOST: url };
      const options = { sleep: async (ms: number) => void sleeps.push(ms), random: () => 0.5 };
      const usual = createProvider(env, options);
      const first = faultEnv === undefined ? usual : createProvider({ ...env, ...faultEnv }, options);
      let calls = 0;
      const provider: Provider = {
        kind: usual.kind,
        model: usual.model,
        chat: (messages, tools) => {
          calls += 1;
          return (calls === 1 ? first : usual).chat(messages, tools);
        },
      };
      const world = await startWorld(t, { provider, env });
      const answer = await world.ask('hello?');
      t.regex(answer, told.source.startsWith('^') ? told : new RegExp(`${SORRY.source}.*${told.source}`));
      if (waits !== undefined) t.deepEqual(sleeps, [...waits]);
      await checkInvariants(t, world, {
        probe: { text: 'still there?', answer: script === null ? SORRY : /^pong$/ },
        canary: CANARY,
        elsewhere: server.requests.map(r => r.text),
      });
    });
  }
}

// ---------------------------------------------------------------- tools

/** A daemon tool `name` that does what `execute` does. */
const daemonTool = (name: string, execute: (args: Record<string, unknown>) => Promise<unknown>) => ({
  introducedNames: { [name]: name },
  prepare: async (_host: unknown, daemon: LocalDaemon) => {
    await makeToolCaplet(daemon, name, () =>
      makeExo(`${name}Tool`, FaeToolInterface, {
        schema: () =>
          harden({ type: 'function', function: { name, description: name, parameters: { type: 'object', properties: {} } } }),
        execute: async (args: Record<string, unknown>) => execute(args),
        help: () => name,
      }),
    );
  },
});

const toolResults = (request: RecordedRequest) => request.messages.filter(m => m.role === 'tool').map(m => m.content);
/** Calls `tool` `times` times in one step, then answers with what the tool results were. */
const callThenReport = (tool: string, args: readonly Record<string, unknown>[]): ScriptedReply[] => [
  { toolCalls: args.map(a => ({ name: tool, arguments: a })) },
  request => ({ text: `results: ${toolResults(request).join(' | ').slice(0, 2000)}` }),
  { text: 'pong' },
];

const late = makePromiseKit<void>();
interface ToolCase {
  readonly fault: string;
  readonly tool: ReturnType<typeof daemonTool>;
  readonly calls: readonly Record<string, unknown>[];
  readonly told: RegExp;
  /** Checked on the tool results the model saw. */
  readonly saw?: (results: readonly string[]) => boolean;
  readonly env?: Readonly<Record<string, string>>;
}

const NON_ERRORS = harden([{ code: 'E_BUSY' }, 'no disk', 7, undefined, { deep: { list: [1n] } }]);
const TOOL_CASES: readonly ToolCase[] = [
  {
    fault: 'throw',
    tool: daemonTool('boom', async () => {
      throw Error(`kaput (key ${CANARY} was loaded)`);
    }),
    calls: [{}],
    told: /^results: \{error:"kaput/,
  },
  {
    fault: 'reject with non-errors',
    tool: daemonTool('odd', async args => {
      throw NON_ERRORS[Number(args.i)];
    }),
    calls: NON_ERRORS.map((_, i) => ({ i })),
    told: /^results: \{error:\{code:"E_BUSY"\}\} \| \{error:"no disk"\} \| \{error:7\} \| \{error:"the tool failed without saying why \(it rejected with undefined\)"\} \| \{error:\{deep:\{list:\[1n\]\}\}\}$/,
  },
  {
    fault: 'hang',
    tool: daemonTool('wait', () => new Promise(() => {})),
    calls: [{}],
    told: /^results: \{error:"Tool \\"wait\\" did not answer within 500 ms"\}$/,
    env: { FAE_TOOL_TIMEOUT_MS: '500' },
  },
  {
    fault: 'late answer',
    tool: daemonTool('slow', async () => {
      await new Promise(resolve => setTimeout(resolve, 1500));
      late.resolve();
      return 'too late';
    }),
    calls: [{}],
    told: /^results: \{error:"Tool \\"slow\\" did not answer within 500 ms"\}$/,
    env: { FAE_TOOL_TIMEOUT_MS: '500' },
  },
  {
    fault: 'huge answer',
    tool: daemonTool('flood', async () => `HEAD${'z'.repeat(5_000_000)}TAIL`),
    calls: [{}],
    told: /^results: HEAD/,
    saw: ([result]) => result.length < 50_100 && result.endsWith('TAIL') && /\[… 4950008 characters omitted …\]/.test(result),
  },
  {
    fault: 'capability answer',
    tool: daemonTool('cap', async () => Far('Counter', { increment: () => 1 })),
    calls: [{}],
    told: /^results: .*Counter/,
  },
];

for (const { fault, tool, calls, told, saw, env: caseEnv = {} } of TOOL_CASES) {
  test(`tool: ${fault}`, async t => {
    const name = Object.keys(tool.introducedNames)[0];
    const llm = makeScriptedProvider(callThenReport(name, calls));
    const env = { ...FAST, ...caseEnv, LAL_AUTH_TOKEN: CANARY };
    const world = await startWorld(t, { provider: llm.provider, env, ...tool });
    t.regex(await world.ask(`use ${name}`), told);
    if (saw) t.true(saw(toolResults(llm.requests[1])));
    if (fault === 'late answer') await late.promise;
    await checkInvariants(t, world, { probe: { text: 'still there?', answer: /^pong$/ }, canary: CANARY });
    // A late answer changes nothing: one result per call, in order.
    t.is(toolResults(llm.requests[2]).length, calls.length);
  });
}

// ---------------------------------------------------------------- the daemon

interface DaemonCase {
  readonly fault: string;
  readonly faults: (faults: Faults) => void;
  readonly script: readonly ScriptedReply[];
  readonly told: RegExp;
  readonly refused: readonly string[];
}

const DAEMON_CASES: readonly DaemonCase[] = [
  {
    fault: 'refused send (the ready announcement and the model\'s send)',
    faults: f => f.refuse('send'),
    script: [
      { toolCalls: [{ name: 'send', arguments: { recipient: 'HOST', strings: ['by send'] } }] },
      request => ({ text: `send said ${toolResults(request)[0]}` }),
    ],
    told: /^send said \{error:"the daemon refused send/,
    refused: ['send', 'send'],
  },
  {
    fault: 'refused reply (fae answers by name instead)',
    faults: f => f.refuse('reply', ([n]) => n === 1n),
    script: [{ text: 'an answer that cannot be a reply' }],
    told: /^an answer that cannot be a reply$/,
    refused: ['reply'],
  },
  {
    fault: 'refused dismiss',
    faults: f => f.refuse('dismiss'),
    script: [{ toolCalls: [{ name: 'dismiss', arguments: { messageNumber: 1 } }] }, { text: 'done anyway' }],
    told: /^done anyway$/,
    refused: ['dismiss'],
  },
  {
    fault: 'refused lookup',
    faults: f => f.refuse('lookup'),
    script: [
      { toolCalls: [{ name: 'lookup', arguments: { petName: 'note' } }] },
      request => ({ text: `lookup said ${toolResults(request)[0]}` }),
    ],
    told: /^lookup said \{error:"the daemon refused lookup/,
    refused: ['lookup'],
  },
];

for (const { fault, faults: inject, script, told, refused } of DAEMON_CASES) {
  test(`daemon: ${fault}`, async t => {
    const faults = makeFaults();
    inject(faults);
    const llm = makeScriptedProvider([...script, { text: 'pong' }]);
    const world = await startWorld(t, {
      provider: llm.provider,
      env: { ...FAST, LAL_AUTH_TOKEN: CANARY },
      wrapPowers: powers => faultyPowers(powers, faults),
    });
    t.regex(await world.ask('please'), told);
    await checkInvariants(t, world, { probe: { text: 'still there?', answer: /^pong$/ }, canary: CANARY });
    // After the probe: fae dismisses a message once its turn is over.
    t.deepEqual(faults.refused.slice(0, refused.length), [...refused]);
  });
}

test('daemon: a directory gone (tools/ removed under fae)', async t => {
  const llm = makeScriptedProvider([
    { toolCalls: [{ name: 'list', arguments: { path: 'tools' } }] },
    request => ({ text: `list said ${toolResults(request)[0]}` }),
    { text: 'pong' },
  ]);
  const world = await startWorld(t, { provider: llm.provider, env: { ...FAST, LAL_AUTH_TOKEN: CANARY } });
  await E(world.host).remove('profile-for-fae', 'tools');
  t.regex(await world.ask('what tools?'), /^list said \{error:/);
  t.true(world.logs.some(line => /tools-unlisted/.test(line)));
  await checkInvariants(t, world, { probe: { text: 'still there?', answer: /^pong$/ }, canary: CANARY });
});

// ---------------------------------------------------------------- the mail

// fae names the sender by its pet name for it: HOST on February, @host later.
const HEADER = new RegExp(`^Message #\\d+ from ${specialNames.host.replace(/[^\w]/g, '\\$&')}: `);

/** The model answers each message with what it was asked, measured. */
const echo: ScriptedReply = request => {
  const content = String(request.messages.at(-1)?.content ?? '');
  const text = content.replace(HEADER, '');
  return { text: text.length > 200 ? `${text.length} characters` : `echo ${text}` };
};

test('mail: a flood of 100 messages is answered in order, each once', async t => {
  const llm = makeScriptedProvider(Array.from({ length: 101 }, () => echo));
  const world = await startWorld(t, { provider: llm.provider, env: { ...FAST, LAL_AUTH_TOKEN: CANARY } });
  for (let i = 0; i < 100; i += 1) {
    // One after another, so that the order they arrive in is known.
    await world.send(`flood ${i}`);
  }
  const answers = await world.answers(100);
  t.deepEqual(answers, Array.from({ length: 100 }, (_, i) => `echo flood ${i}`));
  await checkInvariants(t, world, { probe: { text: 'still there?', answer: /^echo still there\?$/ }, canary: CANARY });
});

test('mail: a huge text (1 MB) is read and answered', async t => {
  // More than two model calls: past the context budget, fae asks for a summary.
  const llm = makeScriptedProvider(Array.from({ length: 10 }, () => echo));
  const world = await startWorld(t, { provider: llm.provider, env: { ...FAST, LAL_AUTH_TOKEN: CANARY } });
  t.is(await world.ask('x'.repeat(1_000_000)), '1000000 characters');
  t.is(String(llm.requests[0].messages.at(-1)?.content).length, `Message #1 from ${specialNames.host}: `.length + 1_000_000);
  await checkInvariants(t, world, { probe: { text: 'still there?', answer: /^echo still there\?$/ }, canary: CANARY });
});

test('mail: a huge answer (300,000 characters) reaches the sender whole', async t => {
  const long = `${'long answer '.repeat(25_000)}end`;
  const llm = makeScriptedProvider([{ text: long }, ...Array.from({ length: 10 }, () => echo)]);
  const world = await startWorld(t, { provider: llm.provider, env: { ...FAST, LAL_AUTH_TOKEN: CANARY } });
  t.is(await world.ask('tell me everything'), long);
  await checkInvariants(t, world, { probe: { text: 'still there?', answer: /^echo still there\?$/ }, canary: CANARY });
});

test('mail: many attachments (50) are described to the model', async t => {
  const llm = makeScriptedProvider([echo, echo]);
  const names = Array.from({ length: 50 }, (_, i) => `v${i}`);
  const world = await startWorld(t, {
    provider: llm.provider,
    env: { ...FAST, LAL_AUTH_TOKEN: CANARY },
    prepare: async host => {
      await Promise.all(names.map(name => E(host).storeValue(name, name)));
    },
  });
  await world.send('take these:', names.map(name => `e-${name}`), names);
  t.is(await world.nextAnswer(), `${'take these:'.length + names.map(n => `@e-${n} `).join('').length} characters`);
  t.true(String(llm.requests[0].messages.at(-1)?.content).includes('@e-v49'));
  await checkInvariants(t, world, { probe: { text: 'still there?', answer: /^echo still there\?$/ }, canary: CANARY });
});

test('mail: odd characters arrive and leave unchanged', async t => {
  const odd = 'nul\u0000 rtl\u202e emoji😀 zw\u200b crlf\r\n "quotes" <b>html</b> \\ `ticks` {"json": 1}';
  const llm = makeScriptedProvider([echo, echo]);
  const world = await startWorld(t, { provider: llm.provider, env: { ...FAST, LAL_AUTH_TOKEN: CANARY } });
  t.is(await world.ask(odd), `echo ${odd}`);
  await checkInvariants(t, world, { probe: { text: 'still there?', answer: /^echo still there\?$/ }, canary: CANARY });
});

// ---------------------------------------------------------------- the lifecycle

test('lifecycle: a restart in the middle of a turn answers the message once, after the restart', async t => {
  const llm = makeScriptedProvider([{ hang: true }, { text: 'answered after the restart' }, echo]);
  const world = await startWorld(t, { provider: llm.provider, env: { ...FAST, LAL_AUTH_TOKEN: CANARY } });
  await world.send('a long question');
  await llm.whenCalled(1);
  await world.daemon.restart();
  t.is(await world.nextAnswer(), 'answered after the restart');
  await checkInvariants(t, world, { probe: { text: 'still there?', answer: /^echo still there\?$/ }, canary: CANARY });
  t.is(llm.requests.length, 3);
});

test('lifecycle: a cancel in the middle of a turn leaves the message for the next start, which answers it once', async t => {
  const llm = makeScriptedProvider([{ hang: true }, { text: 'answered by the next fae' }, echo]);
  const world = await startWorld(t, { provider: llm.provider, env: { ...FAST, LAL_AUTH_TOKEN: CANARY } });
  await world.send('a long question');
  await llm.whenCalled(1);
  await E(world.host).cancel('controller-for-fae');
  const kept: { strings?: string[] }[] = await E(world.fae).listMessages();
  t.true(kept.some(m => m.strings?.[0] === 'a long question'), 'the interrupted message is not dismissed');
  await world.daemon.restart();
  t.is(await world.nextAnswer(), 'answered by the next fae');
  await checkInvariants(t, world, { probe: { text: 'still there?', answer: /^echo still there\?$/ }, canary: CANARY });
});

// fae's stored conversations are sealed from its tools by capability
// (src/toolbox/built-ins/sealed-powers.ts). With conversations stored by real turns
// of two correspondents, the model calls every built-in with every name
// argument spelt every way we know that lands in the store (and a few that
// only look alike, and fae's own directory). No result carries a stored
// key or stored text, every refusal is the one clear error, no mail leaves
// with the store or fae's directory attached, every stored record is still
// there afterwards, and fae still remembers after a restart.
import test from 'ava';
import { E } from '@endo/far';
import { startFaeInDaemon, type Far } from './support/fae-harness.js';
import { echoReply, makeScriptedProvider, type ScriptedCall } from './support/scripted-provider.js';
import { fromSelf, messageText, nextMessage, specialNames } from './support/daemon.js';
import type { RecordedRequest } from './support/scripted-provider.js';
import { waitForLog } from './support/registry-tools.js';
import { storedNodes, storedRecords, untilStored } from './support/stored-nodes.js';
import { formulaIdOf } from '../src/daemon/dialect.js';

/** Generous: the machine running the tests may be busy (no timing is asserted). */
const WAIT_MS = 60_000;
const BUSY_TIMEOUT_MS = 600_000;

const HOLDS = "fae's private memory of its conversations";
/** The one refusal for a path that reaches the store, quoting it up to the store. */
const refusal = (shown: string) => `${JSON.stringify(shown)} is ${HOLDS}; no tool may read or change it`;

/** What each correspondent told fae, which must never come back through a tool. */
const HOST_DIARY = 'host-diary: the launch code is 4711';
const ALICE_DIARY = 'alice-diary: my PIN is 0815';

type Spelling = string | readonly string[];

/**
 * A spelling of a name argument and what it lands in: the store (refused,
 * quoting `shown`), fae's own directory (readable, never given or
 * replaced), or somewhere else that merely looks alike.
 */
type Case =
  | { readonly spelling: Spelling; readonly lands: 'store'; readonly shown: string }
  | { readonly spelling: Spelling; readonly lands: 'own directory' | 'elsewhere' };

const spellings = (key: string, node: string): readonly Case[] => {
  const store = (spelling: Spelling, shown = 'conversations'): Case => ({ spelling, lands: 'store', shown });
  return [
    store('conversations'),
    store('/conversations'),
    store('//conversations'),
    store('./conversations'),
    store('conversations/'),
    store('/./conversations/.'),
    store(`conversations/${key}`),
    store(`conversations/${key}/${node}`),
    store(['conversations']),
    store(['', 'conversations']),
    store(['conversations', key]),
    store('SELF/conversations', 'SELF/conversations'),
    store('@self/conversations', '@self/conversations'),
    store('AGENT/conversations', 'AGENT/conversations'),
    store('@agent/conversations', '@agent/conversations'),
    store(`/${specialNames.agent}//conversations/${key}`, `${specialNames.agent}/conversations`),
    store([specialNames.agent, 'conversations'], `${specialNames.agent}/conversations`),
    store(`${specialNames.agent}/${specialNames.agent}/conversations`, `${specialNames.agent}/${specialNames.agent}/conversations`),
    // Second names made by copy before the seal: one for the store, one
    // for fae's own directory.
    store('alias', 'alias'),
    store(`alias/${key}`, 'alias'),
    store('me/conversations', 'me/conversations'),
    { spelling: 'AGENT', lands: 'own directory' },
    { spelling: '@agent', lands: 'own directory' },
    { spelling: `/${specialNames.agent}/`, lands: 'own directory' },
    { spelling: [specialNames.agent], lands: 'own directory' },
    { spelling: 'me', lands: 'own directory' },
    { spelling: 'Conversations', lands: 'elsewhere' },
    { spelling: 'conversation', lands: 'elsewhere' },
  ];
};

/**
 * Every name argument of every built-in, with how the built-in uses it:
 * read, given away (attached, copied or moved from, a request's answer),
 * written (stored, replaced, removed) or nested under tools/.
 */
interface Slot {
  readonly tool: string;
  readonly argument: string;
  readonly use: 'read' | 'give' | 'write' | 'under tools';
  readonly args: (spelling: Spelling, request: number) => Record<string, unknown>;
}

/** petNames are strings: an array spelling is given as its path. */
const asText = (spelling: Spelling) => (typeof spelling === 'string' ? spelling : spelling.join('/'));

const SLOTS: readonly Slot[] = [
  { tool: 'list', argument: 'path', use: 'read', args: s => ({ path: s }) },
  { tool: 'lookup', argument: 'petName', use: 'read', args: s => ({ petName: s }) },
  { tool: 'has', argument: 'petName', use: 'read', args: s => ({ petName: s }) },
  { tool: 'identify', argument: 'petName', use: 'read', args: s => ({ petName: s }) },
  { tool: 'inspect', argument: 'petName', use: 'read', args: s => ({ petName: s }) },
  { tool: 'send', argument: 'recipient', use: 'read', args: s => ({ recipient: s, strings: ['hello'] }) },
  {
    tool: 'request',
    argument: 'recipient',
    use: 'read',
    args: s => ({ recipient: s, description: 'anything', responseName: 'an-answer' }),
  },
  { tool: 'store', argument: 'petName', use: 'write', args: s => ({ value: 'overwritten', petName: s }) },
  { tool: 'remove', argument: 'petName', use: 'write', args: s => ({ petName: s }) },
  { tool: 'makeDirectory', argument: 'petName', use: 'write', args: s => ({ petName: s, replace: true }) },
  { tool: 'move', argument: 'to', use: 'write', args: s => ({ from: 'scratch', to: s, replace: true }) },
  { tool: 'copy', argument: 'to', use: 'write', args: s => ({ from: 'scratch', to: s, replace: true }) },
  {
    tool: 'adopt',
    argument: 'petName',
    use: 'write',
    args: (s, n) => ({ messageNumber: n, edgeName: 'gift', petName: s, replace: true }),
  },
  {
    tool: 'request',
    argument: 'responseName',
    use: 'write',
    args: s => ({ recipient: specialNames.host, description: 'anything', responseName: s }),
  },
  { tool: 'move', argument: 'from', use: 'give', args: s => ({ from: s, to: 'moved-away', replace: true }) },
  { tool: 'copy', argument: 'from', use: 'give', args: s => ({ from: s, to: 'copied', replace: true }) },
  {
    tool: 'send',
    argument: 'petNames',
    use: 'give',
    args: s => ({ recipient: specialNames.host, strings: ['take ', ''], edgeNames: ['gift'], petNames: [asText(s)] }),
  },
  {
    tool: 'reply',
    argument: 'petNames',
    use: 'give',
    args: (s, n) => ({ messageNumber: n, strings: ['take ', ''], edgeNames: ['gift'], petNames: [asText(s)] }),
  },
  { tool: 'resolve', argument: 'petName', use: 'give', args: (s, n) => ({ messageNumber: n, petName: s }) },
  {
    tool: 'adoptTool',
    argument: 'toolName',
    use: 'under tools',
    args: (s, n) => ({ messageNumber: n, edgeName: 'gift', toolName: s }),
  },
];

/** The same special name in the other generation's spelling ("AGENT/x" and "@agent/x"). */
const otherSpelling = (shown: string) => {
  const [head, ...rest] = shown.split('/');
  const other = /^@[a-z]+$/.test(head) ? head.slice(1).toUpperCase() : /^[A-Z]+$/.test(head) ? `@${head.toLowerCase()}` : head;
  return [other, ...rest].join('/');
};

/** The words of the latest user message fae sent the model. */
const lastUser = (request: RecordedRequest) =>
  request.messages.filter(m => m.role === 'user').at(-1)?.content ?? '';

test('no built-in reaches fae\'s stored conversations, however the name is spelt', async t => {
  t.timeout(BUSY_TIMEOUT_MS);
  const calls: { readonly id: string; readonly slot: Slot; readonly case: Case; readonly sent: string }[] = [];
  const llm = makeScriptedProvider([echoReply, echoReply, echoReply]);
  const { host, fae, nextFromFae, daemon, logs } = await startFaeInDaemon({
    provider: llm.provider,
    // One call after the other, so each sees what the one before left; a
    // budget that keeps every result of the long turn in view.
    env: { FAE_PARALLEL_TOOLS: '0', FAE_CONTEXT_TOKENS: '4000000', FAE_MAX_TRANSCRIPT: '5000' },
  });
  t.teardown(() => daemon.stop());
  await nextFromFae(WAIT_MS);

  // Real turns of two correspondents, stored by fae.
  const alice: Far = await E(host).provideGuest('alice', { introducedNames: { fae: 'fae' }, agentName: 'alice-agent' });
  let aliceSeen = -1n;
  const fromFae = fromSelf(alice);
  const nextForAlice = async () => {
    const message = await nextMessage(alice, async m => m.number > aliceSeen && (await fromFae(m)), WAIT_MS);
    aliceSeen = message.number;
    return message;
  };
  await E(host).send('fae', [HOST_DIARY], [], []);
  t.is(messageText(await nextFromFae(WAIT_MS)), `re: ${HOST_DIARY}`);
  await E(alice).send('fae', [ALICE_DIARY], [], []);
  t.is(messageText(await nextForAlice()), `re: ${ALICE_DIARY}`);
  await E(host).send('fae', ['host-diary: the door is blue'], [], []);
  await nextFromFae(WAIT_MS);
  // Stored after the answer: waited for.
  const before = await untilStored(fae, 3);
  const keys = [...new Set(before.flatMap(({ key }) => [key, key.replace(/-g\d+$/, '')]))];
  const storedTexts = [HOST_DIARY, ALICE_DIARY, 'the door is blue', '4711', '0815'];

  // Names made before the seal (by the host, or by a model before this
  // fix): a second name for the store and one for fae's own directory; and
  // something to move and copy.
  await E(fae).copy(['conversations'], ['alias']);
  await E(fae).copy([specialNames.agent], ['me']);
  await E(fae).storeValue('scratch value', 'scratch');
  const [storeId, ownId] = await Promise.all([E(fae).identify('conversations'), E(fae).identify(specialNames.agent)]);

  // alice asks fae for something: the turn that answers her calls every
  // built-in with every spelling.
  const [someNode] = await storedNodes(fae);
  const cases = spellings(someNode.key, someNode.name);
  llm.push(
    request => {
      const number = Number(/^Message #(\d+)/.exec(lastUser(request))?.[1]);
      const toolCalls: ScriptedCall[] = SLOTS.flatMap(slot =>
        cases.map(spelled => {
          const id = `sealed_${calls.length}`;
          const args = slot.args(spelled.spelling, number);
          calls.push({ id, slot, case: spelled, sent: JSON.stringify(args) });
          return { id, name: slot.tool, arguments: args };
        }),
      );
      return { toolCalls };
    },
    { text: 'done' },
  );
  const asked = llm.requests.length + 2;
  const logsBefore = logs.length;
  void E(alice).request('fae', 'what do you keep about the others?', 'answer').catch(() => {});
  const last = await llm.whenCalled(asked);
  // Stored and done: the turn is over (a call the model made may have
  // answered alice already, so no closing answer is awaited).
  const number = /^Message #(\d+)/.exec(lastUser(last))?.[1];
  await waitForLog(logs, ['message-done', `message=${number} `], { from: logsBefore, timeoutMs: WAIT_MS });

  const results = new Map(
    last.messages.filter(m => m.role === 'tool').map(m => [m.tool_call_id, m.content]),
  );
  t.is(results.size, calls.length);
  for (const { id, slot, case: spelled, sent } of calls) {
    const result = results.get(id) ?? '';
    const label = `${slot.tool} ${slot.argument}=${JSON.stringify(spelled.spelling)}: ${result}`;
    // A key the model wrote itself may be quoted back; nothing else may.
    for (const secret of [...keys, ...storedTexts].filter(text => !sent.includes(text))) {
      t.false(result.includes(secret), `${label} carries ${secret}`);
    }
    if (spelled.lands === 'store' && slot.use !== 'under tools') {
      // A tool that spells special names the daemon's way before asking
      // (request) quotes that spelling.
      const expected = [refusal(spelled.shown), refusal(otherSpelling(spelled.shown))].map(text =>
        `{error:${JSON.stringify(text)}}`,
      );
      t.true(expected.includes(result), label);
    }
    if (spelled.lands === 'own directory' && (slot.use === 'give' || slot.use === 'write')) {
      t.true(result.startsWith('{error:'), label);
    }
    if (spelled.lands === 'own directory' && slot.tool === 'list') {
      t.false(result.includes('"conversations"'), label);
      t.true(result.includes('scratch'), label);
    }
  }

  // No mail left fae with the store or fae's own directory attached.
  const [toHost, toAlice] = await Promise.all([E(host).listMessages(), E(alice).listMessages()]);
  for (const message of [...toHost, ...toAlice]) {
    const attached = (message.ids ?? []).map((id: string) => formulaIdOf(id) ?? id);
    t.false(attached.includes(storeId) || attached.includes(ownId), `message #${message.number} attaches the store`);
    for (const secret of keys) t.false(messageText(message).includes(secret));
  }

  // The store is intact: every record still there, unchanged, under the
  // same directory; only fae itself may have added the ids of its latest
  // answers to the record of their turn (src/conversations/own-copies/link-writes.ts).
  const after = await storedRecords(fae);
  for (const { key, seq, record: was } of before) {
    const is = after.find(found => found.key === key && found.seq === seq)?.record;
    const sentBefore = (was.sent ?? []) as readonly string[];
    t.deepEqual({ ...is, sent: undefined }, { ...was, sent: undefined }, `${key}/${seq}`);
    t.deepEqual((is?.sent as string[] | undefined)?.slice(0, sentBefore.length) ?? [], sentBefore, `${key}/${seq}`);
  }
  t.is(await E(fae).identify('conversations'), storeId);
  t.is(await E(fae).identify('alias'), storeId);

  // And fae still remembers each conversation, and only its own, after a restart.
  await daemon.restart();
  llm.push(echoReply, echoReply);
  await E(host).send('fae', ['what did I tell you?'], [], []);
  t.is(messageText(await nextFromFae(WAIT_MS)), 're: what did I tell you?');
  const forHost = JSON.stringify(llm.requests.at(-1)!.messages);
  t.true(forHost.includes(HOST_DIARY));
  t.true(forHost.includes('the door is blue'));
  t.false(forHost.includes(ALICE_DIARY));
  await E(alice).send('fae', ['and me?'], [], []);
  t.is(messageText(await nextForAlice()), 're: and me?');
  const forAlice = JSON.stringify(llm.requests.at(-1)!.messages);
  t.true(forAlice.includes(ALICE_DIARY));
  t.false(forAlice.includes(HOST_DIARY));
});

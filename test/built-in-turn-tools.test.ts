// The turn-bound built-ins (src/toolbox/built-ins/built-in-turn-tools.ts): one tool
// each, whose calls bring the scope of the turn that makes them. Two turns
// calling at once each see their own; a call from outside any turn,
// through the exo, has no principal: it sees no mail and has no
// conversation to forget.
import test from 'ava';
import { E, Far } from '@endo/far';
import { makeTurnTools } from '../src/toolbox/built-ins/built-in-turn-tools.js';
import type { TurnScope } from '../src/toolbox/built-ins/turn-scope.js';
import type { PowersIn } from '../src/toolbox/built-ins/built-in-tool.js';
import { executeTool } from '../src/toolbox/tools.js';
import type { FaeTool } from '../src/toolbox/discovered-tools.js';
import type { DaemonAdapter } from '../src/daemon/adapter.js';
import type { MessageRecord } from '../src/daemon/endo-types.js';

const message = (number: bigint, from: string): MessageRecord =>
  harden({ number, type: 'package', from, to: 'fae', date: '2026-11-26T00:00:00.000Z', strings: [`from ${from}`], names: [] }) as unknown as MessageRecord;

const INBOX = harden([message(1n, 'alice-id'), message(2n, 'bob-id'), message(3n, 'alice-id')]);

const setUp = () => {
  const sent: { recipient: readonly string[]; forMessage: bigint | undefined }[] = [];
  // As the view of fae's powers made for each turn lists its principal's mail only (sealed-powers.ts).
  const powersIn: PowersIn = scope =>
    Far('Powers', {
      listMessages: async () => harden(INBOX.filter(scope.principal.ownsMessage)),
      send: async () => undefined,
    }) as unknown as ReturnType<PowersIn>;
  const daemon = harden({
    path: (path: readonly string[]) => path,
    senderNames: async (id: string) => [id.replace('-id', '')],
  }) as unknown as DaemonAdapter;
  const tools = makeTurnTools(powersIn, async () => daemon, {
    forgets: true,
    onSend: (recipient, forMessage) => sent.push({ recipient, forMessage }),
  }) as ReadonlyMap<string, FaeTool>;
  return { tools, sent };
};

const scopeOf = (number: bigint, sender: string, forgotten: string[]): TurnScope =>
  harden({
    messageNumber: number,
    principal: { isHost: false, ownsMessage: (m: MessageRecord) => m.from === sender, mayGive: async () => {} },
    forget: async () => {
      forgotten.push(sender);
      return 1;
    },
  });

const numbersIn = (listed: unknown) => (listed as { number: bigint }[]).map(m => m.number);

test('two turns calling at once each get their own scope', async t => {
  const { tools, sent } = setUp();
  const forgotten: string[] = [];
  const alice = scopeOf(1n, 'alice-id', forgotten);
  const bob = scopeOf(2n, 'bob-id', forgotten);
  const [forAlice, forBob] = await Promise.all([
    executeTool('listMessages', {}, tools, { scope: alice }),
    executeTool('listMessages', {}, tools, { scope: bob }),
    executeTool('send', { recipient: 'HOST', strings: ['hi'] }, tools, { scope: bob }),
    executeTool('forgetConversation', {}, tools, { scope: alice }),
  ]);
  t.deepEqual(numbersIn(forAlice), [1n, 3n]);
  t.deepEqual(numbersIn(forBob), [2n]);
  t.deepEqual(sent, [{ recipient: ['HOST'], forMessage: 2n }], 'the send counts for the message of the turn that made it');
  t.deepEqual(forgotten, ['alice-id'], 'only the calling turn\'s correspondent is forgotten');
});

test('a call from outside any turn sees no mail, counts for no message and has nothing to forget', async t => {
  const { tools, sent } = setUp();
  t.deepEqual(numbersIn(await executeTool('listMessages', {}, tools)), []);
  const listMessages = tools.get('listMessages')!;
  t.deepEqual(numbersIn(await E(listMessages).execute(harden({}))), [], 'through the exo as well');
  await E(tools.get('send')!).execute(harden({ recipient: 'HOST', strings: ['hi'] }));
  t.deepEqual(sent, [{ recipient: ['HOST'], forMessage: undefined }]);
  await t.throwsAsync(E(tools.get('forgetConversation')!).execute(harden({})), { message: /outside a message being handled/ });
  await t.throwsAsync(executeTool('listMessages', { all: true }, tools, { scope: scopeOf(1n, 'alice-id', []) }), {
    message: /unknown argument "all"/,
  });
});

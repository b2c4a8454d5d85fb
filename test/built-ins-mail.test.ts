// The mail built-ins (adopt, request, resolve, reject) against a guest in
// the local daemon, with the host on the other end: what each does, and
// each way it refuses.
import test from 'ava';
import { E } from '@endo/far';
import { eventually, startGuestWithBuiltIns } from './support/built-ins.js';
import { nextMessage } from './support/daemon.js';
import type { Logger } from '../src/logging/log.js';

/** A logger that keeps its events and warnings as "name" strings. */
const makeRecordingLogger = () => {
  const lines: string[] = [];
  const logger: Logger = {
    event: name => lines.push(name),
    warn: name => lines.push(name),
    debug: () => {},
  };
  return { logger, lines };
};

test('adopt keeps any attachment under a pet name, and refuses a taken name unless asked', async t => {
  const { host, powers, call, inbox } = await startGuestWithBuiltIns(t);
  await E(host).storeValue({ colour: 'blue' }, 'gift');
  await E(host).storeValue('other', 'second-gift');
  await E(host).send('fae', ['Here is ', ' and ', ''], ['present', 'more'], ['gift', 'second-gift']);
  const [number] = await inbox();
  const n = Number(number);
  t.is(
    await call('adopt', { messageNumber: n, edgeName: '@present', petName: 'mine' }),
    `Adopted @present from message #${n} as "mine".`,
  );
  t.deepEqual(await E(powers).lookup('mine'), { colour: 'blue' });
  await E(powers).makeDirectory('box');
  t.is(
    await call('adopt', { messageNumber: String(n), edgeName: 'more', petName: 'box/more' }),
    `Adopted @more from message #${n} as "box/more".`,
  );
  t.is(await E(powers).lookup(['box', 'more']), 'other');

  await t.throwsAsync(call('adopt', { messageNumber: n, edgeName: 'more', petName: 'mine' }), {
    message:
      'petName: "mine" already exists; choose an unused name (list shows them), or pass replace: true to replace what it holds',
  });
  t.deepEqual(await E(powers).lookup('mine'), { colour: 'blue' });
  await call('adopt', { messageNumber: n, edgeName: 'more', petName: 'mine', replace: true });
  t.is(await E(powers).lookup('mine'), 'other');

  await t.throwsAsync(call('adopt', { messageNumber: n, edgeName: 'nope', petName: 'x' }), {
    message: /No reference named "nope"/,
  });
  await t.throwsAsync(call('adopt', { messageNumber: 99, edgeName: 'present', petName: 'x' }), {
    message: /^there is no message #99 in your inbox/,
  });
  await t.throwsAsync(call('adopt', { messageNumber: 'three', edgeName: 'present', petName: 'x' }), {
    message: 'messageNumber must be a whole number such as 3 or "3", not "three"',
  });
  await t.throwsAsync(call('adopt', { messageNumber: n, petName: 'x' }), {
    message: 'edgeName is required: a non-empty string',
  });
  t.false(await E(powers).has('x'));
});

test('request asks the host and returns at once; the answer lands under responseName', async t => {
  const { logger, lines } = makeRecordingLogger();
  const { host, powers, special, call } = await startGuestWithBuiltIns(t, { hooks: { logger } });
  t.is(
    await call('request', { recipient: special.host, description: 'a door key', responseName: 'key' }),
    `Asked "${special.host}": "a door key". If they give it, it will be stored as "key"; if they decline, nothing is stored.`,
  );
  const asked = await nextMessage(host, record => record.type === 'request');
  t.is(asked.description, 'a door key');
  t.false(await E(powers).has('key'));
  await E(host).storeValue('the key', 'door-key');
  await E(host).resolve(asked.number, 'door-key');
  t.true(await eventually(() => E(powers).has('key')));
  t.is(await E(powers).lookup('key'), 'the key');
  t.true(await eventually(async () => lines.includes('request-answered')));

  await call('request', { recipient: special.host, description: 'a secret', responseName: 'secret' });
  const second = await nextMessage(host, r => r.type === 'request' && r.number > asked.number);
  await E(host).reject(second.number, 'not for you');
  t.true(await eventually(async () => lines.includes('request-declined')));
  t.false(await E(powers).has('secret'));
  // The host's other spelling reaches the host too, on every daemon.
  const otherSpelling = special.host === 'HOST' ? '@host' : 'HOST';
  await call('request', { recipient: otherSpelling, description: 'a lamp', responseName: 'lamp' });
  const third = await nextMessage(host, r => r.type === 'request' && r.number > second.number);
  t.is(third.description, 'a lamp');
});

test('request refuses an unknown recipient and a taken responseName, and sends nothing', async t => {
  const { host, powers, special, call } = await startGuestWithBuiltIns(t);
  await E(powers).storeValue('already', 'key');
  await t.throwsAsync(call('request', { recipient: 'nobody', description: 'x', responseName: 'new' }), {
    message:
      'recipient: nothing is named "nobody"; give the pet name of an agent, or your host\'s special name as list shows it',
  });
  await t.throwsAsync(call('request', { recipient: special.host, description: 'x', responseName: 'key' }), {
    message: 'responseName: "key" already exists; choose an unused name for the answer',
  });
  await t.throwsAsync(call('request', { recipient: special.host, responseName: 'new' }), {
    message: 'description is required: a non-empty string',
  });
  await t.throwsAsync(call('request', { recipient: special.host, description: 'x' }), {
    message: 'responseName is required: a pet name such as "notes" or a path such as "tools/greet"',
  });
  const messages = await E(host).listMessages();
  t.false(messages.some((m: { type: string }) => m.type === 'request'));
  t.is(await E(powers).lookup('key'), 'already');
});

test('resolve answers a request with something from the directory; reject declines one', async t => {
  const answered: bigint[] = [];
  const { host, powers, call, inbox } = await startGuestWithBuiltIns(t, {
    hooks: { onReply: number => answered.push(number) },
  });
  await E(powers).storeValue('hello', 'note');
  const wanted = E(host).request('fae', 'your note, please', 'from-fae');
  const request = await nextMessage(powers, record => record.type === 'request');
  const n = Number(request.number);
  t.is(await call('resolve', { messageNumber: n, petName: 'note' }), `Answered request #${n} with "note".`);
  t.is(await wanted, 'hello');
  t.is(await E(host).lookup('from-fae'), 'hello');

  const refused = E(host).request('fae', 'your secrets', 'secrets');
  refused.catch(() => {});
  const second = await nextMessage(powers, r => r.type === 'request' && r.number > request.number);
  const m = Number(second.number);
  t.is(
    await call('reject', { messageNumber: m, reason: 'they are mine' }),
    `Declined request #${m}: "they are mine".`,
  );
  await t.throwsAsync(refused, { message: 'they are mine' });
  t.deepEqual(answered, [request.number, second.number]);
  t.is((await inbox()).length, 2);
});

test('resolve and reject refuse what is not a pending request, and a missing name', async t => {
  const answered: bigint[] = [];
  const { host, powers, call, inbox } = await startGuestWithBuiltIns(t, {
    hooks: { onReply: number => answered.push(number) },
  });
  await E(host).send('fae', ['just a note'], [], []);
  const [packageNumber] = await inbox();
  const p = Number(packageNumber);
  const pending = E(host).request('fae', 'anything', 'reply-name');
  pending.catch(() => {});
  const request = await nextMessage(powers, record => record.type === 'request');
  const r = Number(request.number);

  for (const tool of ['resolve', 'reject']) {
    const more = tool === 'resolve' ? { petName: 'x' } : {};
    await t.throwsAsync(call(tool, { messageNumber: p, ...more }), {
      message: `messageNumber: message #${p} is a package message, not a request; answer it with reply instead`,
    });
    await t.throwsAsync(call(tool, { messageNumber: 99, ...more }), {
      message: 'there is no message #99 in your inbox; listMessages shows the messages you can act on',
    });
    await t.throwsAsync(call(tool, { messageNumber: -1 }), {
      message: 'messageNumber must be a whole number such as 3 or "3", not -1',
    });
  }
  await t.throwsAsync(call('resolve', { messageNumber: r, petName: 'ghost' }), {
    message: 'petName: nothing is named "ghost"; list shows your names',
  });
  await t.throwsAsync(call('reject', { messageNumber: r, reason: 5 }), {
    message: 'reason must be a string, not 5',
  });
  await t.throwsAsync(call('reject', { messageNumber: r, why: 'no' }), {
    message: 'unknown argument "why"; it accepts "messageNumber", "reason"',
  });
  t.deepEqual(answered, []);
  // Still pending: declining it now works, with the daemon's default reason.
  t.is(await call('reject', { messageNumber: r }), `Declined request #${r}.`);
  await t.throwsAsync(pending, { message: 'Declined' });
});

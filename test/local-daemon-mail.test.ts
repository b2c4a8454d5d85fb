// The local daemon's mail against the spec (§4.3, §4.4, §5, §6).
import test from 'ava';
import { E } from '@endo/far';
import { formulaIdOf } from '../src/daemon/dialect.js';
import {
  dialect,
  followInbox,
  makeLocalDaemon,
  specialNames as N,
  messageText,
  nextMessage,
  type MessageRecord,
} from './support/daemon.js';

// `any`: daemon objects are remote presences.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

const HEX = dialect === 'feb' ? /^[0-9a-f]{128}$/ : /^[0-9a-f]{64}$/;
const isFeb = dialect === 'feb';
/** A message field's name in the mail hub: `FROM` in February, `@from` later. */
const field = (name: string) => (isFeb ? name : `@${name.toLowerCase()}`);
/** `from` and `to` are raw ids in February and locators later. */
const idOf = (idOrLocator: string) => formulaIdOf(idOrLocator);

const setup = async () => {
  const daemon = makeLocalDaemon();
  const host: Far = await daemon.host;
  const guest: Far = await E(host).provideGuest('fae', { agentName: 'profile-for-fae' });
  return { daemon, host, guest };
};

test('send delivers to the recipient, then a copy to the sender', async t => {
  const { daemon, host, guest } = await setup();
  const hostSelf = await E(host).identify(N.self);
  const guestSelf = await E(guest).identify(N.self);
  await E(guest).send(N.host, ['Fae agent ready.'], [], []);

  const [inHost] = (await E(host).listMessages()) as MessageRecord[];
  const [ownCopy] = (await E(guest).listMessages()) as MessageRecord[];
  t.is(inHost.number, 0n);
  t.is(ownCopy.number, 0n);
  t.is(inHost.type, 'package');
  t.deepEqual(inHost.strings, ['Fae agent ready.']);
  t.deepEqual(inHost.names, []);
  t.deepEqual(inHost.ids, []);
  t.is(idOf(inHost.from), guestSelf);
  t.is(idOf(inHost.to), hostSelf);
  t.is(idOf(ownCopy.from), guestSelf);
  t.is(idOf(ownCopy.to), hostSelf);
  t.regex(inHost.messageId, HEX);
  t.is(ownCopy.messageId, inHost.messageId);
  t.is(new Date(inHost.date).toISOString(), inHost.date);
  t.false('replyTo' in inHost);
  t.true(inHost.dismissed instanceof Promise);
  t.deepEqual(await E(host).reverseIdentify(idOf(inHost.from)), ['fae']);
  t.deepEqual(await E(guest).reverseIdentify(hostSelf), [N.host]);
  t.is(messageText(inHost), 'Fae agent ready.');
  await daemon.stop();
});

test('message numbers start at 0n and are never reused', async t => {
  const { daemon, host, guest } = await setup();
  await E(host).send('fae', ['one'], [], []);
  await E(host).send('fae', ['two'], [], []);
  await E(guest).dismiss(1n);
  await E(host).send('fae', ['three'], [], []);
  const numbers = ((await E(guest).listMessages()) as MessageRecord[]).map(m => m.number);
  t.deepEqual(numbers, [0n, 2n]);
  t.deepEqual(await E(guest).list(N.mail), ['0', '2']);
  await daemon.stop();
});

test('message numbers must be bigints: a JS number is rejected by the guard', async t => {
  const { daemon, host, guest } = await setup();
  await E(host).send('fae', ['hi'], [], []);
  await t.throwsAsync(E(guest).dismiss(0), {
    message: 'In "dismiss" method of (EndoGuest): arg 0: number (a number) - Must be a bigint',
  });
  await t.throwsAsync(E(guest).reply(0, ['x'], [], []), { message: /^In "reply" method/ });
  await t.throwsAsync(E(guest).adopt(0, 'x', 'y'), { message: /^In "adopt" method/ });
  await t.throwsAsync(E(guest).dismiss(7n), { message: 'Invalid request number 7' });
  await t.throwsAsync(E(guest).reply(7n, ['x'], [], []), { message: 'No such message with number "[7n]"' });
  await E(guest).dismiss(0n);
  t.deepEqual(await E(guest).listMessages(), []);
  await daemon.stop();
});

test('send checks recipient, edge names, counts and attachments in order', async t => {
  const { daemon, guest } = await setup();
  await E(guest).storeValue('v', 'value');
  const bad = isFeb ? 'tools.x' : 'tools/x';
  await t.throwsAsync(E(guest).send(bad, [], [], []), { message: `Invalid name "${bad}"` });
  await t.throwsAsync(E(guest).send(N.host, ['a', 'b'], [field('FROM')], ['value']), {
    message: `Message name "${field('FROM')}" is reserved`,
  });
  await t.throwsAsync(E(guest).send(N.host, ['a', 'b', 'c'], ['x', 'x'], ['value', 'value']), {
    message: 'Message name "x" is duplicated',
  });
  await t.throwsAsync(E(guest).send('nobody', ['a'], [], []), { message: 'Unknown recipient "nobody"' });
  await t.throwsAsync(E(guest).send(N.host, ['a'], ['x'], []), {
    message: 'Message must have one edge name (1) for every pet name (0)',
  });
  await t.throwsAsync(E(guest).send(N.host, [], ['x'], ['value']), {
    message: 'Message must have one string before every value delivered',
  });
  await t.throwsAsync(E(guest).send(N.host, ['a'], ['x'], ['missing']), {
    message: 'Unknown pet name "missing"',
  });
  if (isFeb) {
    // An id is not a name.
    const hostId = await E(guest).identify('HOST');
    await t.throwsAsync(E(guest).send(hostId, ['a'], [], []), { message: /^Invalid name "[0-9a-f]{128}:/ });
  } else {
    // A locator is not a name either: it holds a `/`.
    const hostLocator = await E(guest).locate(N.host);
    await t.throwsAsync(E(guest).send(hostLocator, ['a'], [], []), { message: /^Invalid name "endo:\/\// });
  }
  // Equal counts without trailing text are fine, as are digits and special-syntax edge names.
  await E(guest).send(N.host, ['here: '], ['0'], ['value']);
  await E(guest).send(N.host, ['a', 'b'], [isFeb ? 'GIFT' : '@gift', 'x'], ['value', N.self]);
  t.is(((await E(guest).listMessages()) as MessageRecord[]).length, 2);
  await daemon.stop();
});

test("attachments: adopt binds the attachment's id into an existing directory", async t => {
  const { daemon, host, guest } = await setup();
  await E(host).storeValue('a greeting', 'greeting');
  await E(host).send('fae', ['Here is ', ' for you'], ['greet'], ['greeting']);
  const [message] = (await E(guest).listMessages()) as MessageRecord[];
  t.deepEqual(message.names, ['greet']);
  t.is(idOf(message.ids?.[0] as string), await E(host).identify('greeting'));
  t.is(messageText(message), 'Here is @greet for you');

  await t.throwsAsync(E(guest).adopt(0n, 'greet', ['tools', 'greet']), {
    message: 'Unknown pet name: "tools"',
  });
  await E(guest).makeDirectory('tools');
  await E(guest).adopt(0n, 'greet', ['tools', 'greet']);
  t.is(await E(guest).lookup(['tools', 'greet']), 'a greeting');
  await t.throwsAsync(E(guest).adopt(0n, 'other', 'x'), {
    message: 'No reference named "other" in message "[0n]"',
  });
  await t.throwsAsync(E(guest).adopt(0n, 'greet', N.self), { message: `Invalid pet name "${N.self}"` });
  await daemon.stop();
});

test('reply goes to the sender without a pet name, and sets replyTo', async t => {
  const { daemon, host, guest } = await setup();
  const alice: Far = await E(host).provideGuest('alice');
  await E(host).send('alice', ['intro'], ['fae'], ['fae']);
  await E(alice).adopt(0n, 'fae', 'fae');
  await E(alice).send('fae', ['question?'], [], []);
  const question = (await E(guest).listMessages())[0] as MessageRecord;
  t.deepEqual(await E(guest).reverseIdentify(idOf(question.from)), []);
  await E(guest).reply(question.number, ['answer!'], [], []);

  const aliceInbox = (await E(alice).listMessages()) as MessageRecord[];
  const answer = aliceInbox[aliceInbox.length - 1];
  t.deepEqual(answer.strings, ['answer!']);
  t.is(idOf(answer.from), await E(guest).identify(N.self));
  t.is(answer.replyTo, question.messageId);
  // Replying to one's own sent copy goes to that copy's recipient.
  const guestInbox = (await E(guest).listMessages()) as MessageRecord[];
  const ownCopy = guestInbox[guestInbox.length - 1];
  t.is(idOf(ownCopy.from), await E(guest).identify(N.self));
  await E(guest).reply(ownCopy.number, ['and more'], [], []);
  const last = ((await E(alice).listMessages()) as MessageRecord[]).at(-1) as MessageRecord;
  t.deepEqual(last.strings, ['and more']);
  t.is(last.replyTo, ownCopy.messageId);
  await daemon.stop();
});

test('a message to oneself is delivered once', async t => {
  const { daemon, guest } = await setup();
  await E(guest).send(N.self, ['note to self'], [], []);
  t.is(((await E(guest).listMessages()) as MessageRecord[]).length, 1);
  await daemon.stop();
});

test('dismissal resolves dismissed; the dismisser works too', async t => {
  const { daemon, host, guest } = await setup();
  await E(host).send('fae', ['one'], [], []);
  await E(host).send('fae', ['two'], [], []);
  const [first, second] = (await E(guest).listMessages()) as MessageRecord[];
  await E(guest).dismiss(first.number);
  await first.dismissed;
  await E(second.dismisser as Far).dismiss();
  await second.dismissed;
  t.deepEqual(await E(guest).listMessages(), []);
  await E(host).send('fae', ['three'], [], []);
  await E(host).send('fae', ['four'], [], []);
  await E(guest).dismissAll();
  t.deepEqual(await E(guest).listMessages(), []);
  await daemon.stop();
});

test('followMessages replays undismissed mail, then follows new mail', async t => {
  const { daemon, host, guest } = await setup();
  await E(host).send('fae', ['zero'], [], []);
  await E(host).send('fae', ['one'], [], []);
  await E(guest).dismiss(0n);
  const inbox = followInbox(guest);
  t.is((await inbox.next()).value?.number, 1n);
  const pending = inbox.next();
  await E(host).send('fae', ['two'], [], []);
  const { value, done } = await pending;
  t.false(done);
  t.deepEqual(value?.strings, ['two']);
  t.is(value?.number, 2n);
  await inbox.return?.();
  t.deepEqual(await inbox.next(), { value: undefined, done: true });
  await daemon.stop();
});

test('a message delivered during the replay is yielded twice, as upstream', async t => {
  const { daemon, host, guest } = await setup();
  await E(host).send('fae', ['zero'], [], []);
  await E(host).send('fae', ['one'], [], []);
  const inbox = followInbox(guest);
  // The replay has yielded 0n and is paused before 1n.
  t.is((await inbox.next()).value?.number, 0n);
  await E(host).send('fae', ['two'], [], []);
  const numbers: bigint[] = [];
  for (let i = 0; i < 3; i += 1) numbers.push(((await inbox.next()).value as MessageRecord).number);
  t.deepEqual(numbers, [1n, 2n, 2n]);
  await inbox.return?.();
  await daemon.stop();
});

// August hands out a stream reader instead: see local-daemon-aug.test.ts.
const iteratorTest = dialect === 'aug' ? undefined : test;
iteratorTest?.('the iterator reference is a far exo whose next() takes no arguments', async t => {
  const { daemon, host, guest } = await setup();
  await E(host).send('fae', ['zero'], [], []);
  const ref: Far = await E(guest).followMessages();
  await t.throwsAsync(E(ref).next(undefined), {
    message: '"In \\"next\\" method of (AsyncIterator)" accepts at most 0 arguments, not 1: (an object)',
  });
  t.is((await E(ref).next()).value.number, 0n);
  t.deepEqual(await E(ref).return(), { done: true, value: undefined });
  await daemon.stop();
});

test('for await over the ref iterator sees own copies; break ends it', async t => {
  const { daemon, guest } = await setup();
  await E(guest).send(N.host, ['ready'], [], []);
  const self = await E(guest).identify(N.self);
  for await (const message of followInbox(guest)) {
    t.is(idOf(message.from), self);
    break;
  }
  const record = await nextMessage(guest, m => idOf(m.from) === self);
  t.deepEqual(record.strings, ['ready']);
  await daemon.stop();
});

test('request waits for resolve; reject declines; a bound responseName short-circuits', async t => {
  const { daemon, host, guest } = await setup();
  await E(host).storeValue('the answer', 'answer');
  const asked = E(guest).request(N.host, 'what is it?', 'result');
  const request = await nextMessage(host, m => m.type === 'request');
  t.is(request.description, 'what is it?');
  t.is(messageText(request), 'what is it?');
  t.is(idOf(request.from), await E(guest).identify(N.self));
  await E(host).resolve(request.number, 'answer');
  t.is(await asked, 'the answer');
  t.is(await E(guest).lookup('result'), 'the answer');
  // Bound now, so no message is sent.
  const before = ((await E(host).listMessages()) as MessageRecord[]).length;
  t.is(await E(guest).request(N.host, 'again?', 'result'), 'the answer');
  t.is(((await E(host).listMessages()) as MessageRecord[]).length, before);

  const declined = E(guest).request(N.host, 'please?');
  const second = await nextMessage(host, m => m.type === 'request' && m.description === 'please?');
  await E(host).reject(second.number);
  await t.throwsAsync(declined, { message: 'Declined' });
  if (isFeb) await E(host).reject(99n);
  else await t.throwsAsync(E(host).reject(99n), { message: 'No such message with number "[99n]"' });
  await t.throwsAsync(E(host).resolve(99n, 'answer'), { message: 'Invalid request, "[99n]"' });
  await t.throwsAsync(E(guest).request('nobody', 'x'), { message: 'Unknown recipient nobody' });
  await daemon.stop();
});

test('the MAIL hub opens messages by number', async t => {
  const { daemon, host, guest } = await setup();
  const MAIL = N.mail;
  await E(host).storeValue('payload', 'thing');
  await E(host).send('fae', ['take ', ''], ['gift'], ['thing']);
  t.deepEqual(await E(guest).list(MAIL), ['0']);
  t.deepEqual(
    await E(guest).list(MAIL, '0'),
    [...['FROM', 'TO', 'DATE', 'TYPE', 'MESSAGE', 'STRINGS'].map(field), 'gift'],
  );
  t.is(await E(guest).identify(MAIL, '0', field('FROM')), await E(guest).identify(N.host));
  t.is(await E(guest).lookup([MAIL, '0', 'gift']), 'payload');
  t.deepEqual(await E(guest).lookup([MAIL, '0', field('STRINGS')]), ['take ', '']);
  t.is(await E(guest).lookup([MAIL, '0', field('TYPE')]), 'package');
  await E(guest).copy([MAIL, '0', 'gift'], ['mine']);
  t.is(await E(guest).lookup('mine'), 'payload');
  // Address the sender without a pet name.
  await E(guest).send([MAIL, '0', field('FROM')], ['thanks'], [], []);
  t.deepEqual(((await E(host).listMessages()) as MessageRecord[]).at(-1)?.strings, ['thanks']);
  await t.throwsAsync(E(guest).storeValue(1, [MAIL, 'x']), {
    message: isFeb ? 'not allowed' : 'Mailbox directory is read-only',
  });
  // The own copy of that message is number 1; dismissed messages leave the hub.
  await E(guest).dismiss(0n);
  t.deepEqual(await E(guest).list(MAIL), ['1']);
  await daemon.stop();
});

test('nextMessage times out with a clear error', async t => {
  const { daemon, guest } = await setup();
  await t.throwsAsync(nextMessage(guest, () => true, 50), { message: 'No matching message within 50 ms' });
  await daemon.stop();
});

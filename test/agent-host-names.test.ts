// The host names fae's correspondents (/name WHO NAME): a guest the host
// introduced to fae has no name in fae's directory, so fae calls it by an
// unnamed label until the host says otherwise. The name is the host's
// alone, kept by identity across restarts, and used wherever fae names
// the sender.
import test from 'ava';
import { startReadyFae } from './support/fae-harness.js';
import { echoReply, makeScriptedProvider } from './support/scripted-provider.js';
import { makeCorrespondent } from './support/correspondent.js';

const LABEL = /from an unnamed sender \((unnamed-[0-9a-f]{8})\): /;

test('the host names an unnamed correspondent; the model, replies and restarts use the name', async t => {
  const llm = makeScriptedProvider(Array.from({ length: 6 }, () => echoReply));
  const world = await startReadyFae(t, { provider: llm.provider });
  const carol = await makeCorrespondent(world.host, 'carol');
  await carol.say('hello');
  t.is(await carol.next(), 're: hello');
  const label = LABEL.exec(llm.requests[0].messages.at(-1)?.content ?? '')?.[1];
  if (label === undefined) return t.fail(llm.requests[0].messages.at(-1)?.content);

  t.is(await world.ask(`/name ${label} carol`), `From now on I call ${label} carol.`);
  await carol.say('again');
  t.is(await carol.next(), 're: again');
  t.regex(llm.requests[1].messages.at(-1)?.content ?? '', /^Message #\d+ from carol: again$/);

  // Kept by identity: a restart remembers it.
  await world.daemon.restart();
  await carol.say('after');
  t.is(await carol.next(), 're: after');
  t.regex(llm.requests.at(-1)?.messages.at(-1)?.content ?? '', /^Message #\d+ from carol: after$/);
  // The host may rename by the name it gave.
  t.is(await world.ask('/name carol caroline'), 'From now on I call carol caroline.');
  t.is(llm.requests.length, 3, 'commands need no model call');
});

test("only the host names; a name must be a plain word, not fae's own or another's", async t => {
  const llm = makeScriptedProvider(Array.from({ length: 4 }, () => echoReply));
  const world = await startReadyFae(t, { provider: llm.provider });
  const carol = await makeCorrespondent(world.host, 'carol');
  const dave = await makeCorrespondent(world.host, 'dave');
  await carol.say('hi');
  await dave.say('hi');
  t.is(await carol.next(), 're: hi');
  t.is(await dave.next(), 're: hi');
  const labels = llm.requests.map(request => LABEL.exec(request.messages.at(-1)?.content ?? '')?.[1]);
  t.is(new Set(labels).size, 2, 'two correspondents, two labels');

  // A correspondent cannot name itself or anyone.
  await carol.say(`/name ${labels[0]} host`);
  t.is(await carol.next(), '/name is for my host. /help lists what I answer myself.');
  await carol.say(`/name ${labels[1]} carol`);
  t.is(await carol.next(), '/name is for my host. /help lists what I answer myself.');

  t.regex(await world.ask(`/name ${labels[0]} host`), /^"host" cannot be a name for a correspondent/);
  t.regex(await world.ask(`/name ${labels[0]} a/b`), /^"a\/b" cannot be a name for a correspondent/);
  t.regex(await world.ask('/name unnamed-00000000 zed'), /^I know no correspondent as "unnamed-00000000" just now/);
  t.is(await world.ask(`/name ${labels[0]} friend`), `From now on I call ${labels[0]} friend.`);
  t.is(await world.ask(`/name ${labels[1]} FRIEND`), 'Another correspondent is called "FRIEND" already; choose another name.');
  t.is(llm.requests.length, 2);
});

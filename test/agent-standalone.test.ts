// dist/agent.js in a plain, locked-down Node process, against a daemon
// model it has never seen: the caplet must need nothing from our tests.
import test from 'ava';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('./fixtures/plain-node-daemon.js', import.meta.url));

test('the built caplet starts and answers in a plain locked-down Node process', async t => {
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, ['--import', '@endo/init', script], { timeout: 30_000 }, (error, out, err) =>
      error ? reject(Error(`${error.message}\n${err}`)) : resolve(out),
    );
  });
  const lastLine = stdout.trim().split('\n').at(-1) ?? '';
  const calls = JSON.parse(lastLine) as unknown[][];
  // Startup makes its directories one after the other, then announces itself.
  const ready = calls.findIndex(call => call[0] === 'send');
  t.is(calls[ready][1], 'HOST');
  t.true(String((calls[ready][2] as string[])[0]).startsWith('Fae agent ready. '));
  t.deepEqual(calls[0], ['makeDirectory', 'tools']);
  t.true(calls.slice(0, ready).every(call => call[0] !== 'reply'));
  const reply = calls.find(call => call[0] === 'reply');
  t.is(reply?.[1], '0n');
  // The host sent it: one answer, with the operator's detail, and no report besides.
  t.regex(String((reply?.[2] as string[])[0]), /^Sorry, I could not answer your message "hello": .*cannot reach the LLM at http:\/\/127\.0\.0\.1:9\/v1/);
  t.is(calls.filter(call => call[0] === 'send').length, 1, 'only the ready message was sent');
  t.true(stdout.includes('[fae] message-received message=0 from=HOST'));
});

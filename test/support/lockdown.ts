// Loaded by ava before every test file (see package.json "ava.require").
// It sets the realm up exactly as an Endo daemon worker does: SES lockdown()
// with the default options, plus the HandledPromise shim that E() relies on.
import '@endo/init';
import { writeSync } from 'node:fs';

// The suite's output is what ava reports. Two kinds of lines are left out
// unless FAE_TEST_LOGS=1 asks for them:
//   - CapTP logs every error it sends across a connection ("Temporary
//     logging of sent error", with its stack and notes): thousands of errors
//     the tests expect, a daemon stopped or a tool refused;
//   - the log lines of a fae the daemon loaded from dist/agent.js itself
//     (the setup scripts' tests), which has no test to hand its lines to,
//     and of MCP bridges (tests that read them capture them themselves).
// A test that fails says what it got.
const isNoise = (args: readonly unknown[]) =>
  args[0] === 'Temporary logging of sent error' || (typeof args[0] === 'string' && /^\[(fae|mcp)[ \]]/.test(args[0]));
if (process.env.FAE_TEST_LOGS !== '1') {
  const log = console.log.bind(console);
  globalThis.console = { ...console, log: (...args: unknown[]) => (isNoise(args) ? undefined : log(...args)) };
}

// A test that never ends holds its worker, and with it the whole run, for
// ever: ava's own timeout stops firing once any test has called t.timeout
// (its trigger, ignored then, is not armed again). So each worker watches
// what it tells ava (it tells it through process.send, looked up at each
// message): when it has told nothing for STUCK_MS while tests are still
// unfinished, it throws, naming them. Uncaught, that ends the worker, and
// ava reports it with the file; the run fails and goes on.
const STUCK_MS = Number(process.env.FAE_TEST_STUCK_MS ?? 15 * 60_000);
const unfinished = new Set<string>();
let toldAt = performance.now();
const told = (message: unknown) => {
  toldAt = performance.now();
  const event = (message as { ava?: { type?: string; title?: string; skip?: boolean; todo?: boolean } } | undefined)?.ava;
  if (event?.title === undefined) return;
  if (event.type === 'selected-test' && event.skip !== true && event.todo !== true) unfinished.add(event.title);
  if (event.type === 'test-passed' || event.type === 'test-failed') unfinished.delete(event.title);
};
const send = process.send?.bind(process);
if (send !== undefined) {
  process.send = ((message: unknown, ...rest: unknown[]) => {
    told(message);
    return (send as (...args: unknown[]) => boolean)(message, ...rest);
  }) as typeof process.send;
  setInterval(() => {
    if (unfinished.size === 0 || performance.now() - toldAt < STUCK_MS) return;
    const stuck = `no test ended for ${STUCK_MS / 60_000} minutes; still running: ${[...unfinished].join('; ')}`;
    // Written at once (ava names the file next): its reporter does not show this error's message.
    writeSync(2, `\n${stuck}\n`);
    throw Error(stuck);
  }, Math.min(30_000, STUCK_MS)).unref();
}

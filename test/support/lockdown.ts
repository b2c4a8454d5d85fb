// Loaded by ava before every test file (see package.json "ava.require").
// It sets the realm up exactly as an Endo daemon worker does: SES lockdown()
// with the default options, plus the HandledPromise shim that E() relies on.
import '@endo/init';

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

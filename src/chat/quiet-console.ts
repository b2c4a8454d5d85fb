// While the chat runs, the global console is replaced by one that hands
// each line to a sink instead of printing it into the conversation. Two
// things print to it uninvited: fae itself (dist/agent.js logs one
// "[fae] …" line per event with console.log, as it does in the daemon) and
// @endo/marshal, which logs "Temporary logging of sent error" whenever an
// error crosses CapTP. The chat's own output goes to process.stdout
// directly and is not affected.
import { inspect } from 'node:util';

export type LineSink = (line: string, stream: 'stdout' | 'stderr') => void;

// Errors are shown by name and message: under SES their own properties are
// hidden, and util.inspect would print "{}".
const formatArgument = (arg: unknown) => {
  if (typeof arg === 'string') return arg;
  if (arg instanceof Error) return `${arg.name}: ${arg.message}`;
  return inspect(arg, { depth: 4, breakLength: Infinity });
};

const ERROR_METHODS = new Set(['error', 'warn', 'trace']);

/**
 * Installs the quiet console and returns a function that puts the original
 * back. The global binding is writable after lockdown (SES replaces it
 * itself); the console object it held stays untouched.
 */
export const installQuietConsole = (sink: LineSink): (() => void) => {
  const original = globalThis.console;
  const emit = (method: string, args: readonly unknown[]) => {
    const text = args.map(formatArgument).join(' ');
    for (const line of text.split('\n')) {
      sink(line, ERROR_METHODS.has(method) ? 'stderr' : 'stdout');
    }
  };
  const methods: Record<string, (...args: unknown[]) => void> = {};
  // Every method the real console has (log, info, warn, table, time, ...).
  for (const method of Object.keys(original)) {
    methods[method] = (...args: unknown[]) => emit(method, args);
  }
  methods.assert = (condition?: unknown, ...args: unknown[]) => {
    if (!condition) emit('error', ['Assertion failed', ...args]);
  };
  globalThis.console = harden(methods) as unknown as Console;
  return () => {
    globalThis.console = original;
  };
};
harden(installQuietConsole);

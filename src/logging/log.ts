// src/logging/: the event log and the redaction of secrets that every
// log line, error text and transcript passes through. It imports nothing
// of fae's.
//
// One short line per event ("message-received", "tool-called", ...), with
// every value passed through the redactor. Whole transcripts appear only
// when debug is on, and are redacted too.
import type { Redact } from './redact.js';

export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  /** One line for one event. */
  event(name: string, fields?: LogFields): void;
  /** A warning the operator should see (a bad tool, a failed turn). */
  warn(name: string, fields?: LogFields): void;
  /** Bulky detail (transcripts, tool arguments), only with FAE_DEBUG=1. */
  debug(name: string, detail: () => unknown): void;
}

export interface LoggerOptions {
  readonly redact: Redact;
  readonly debug?: boolean;
  /** Where lines go; console.log by default. */
  readonly write?: (line: string) => void;
  readonly prefix?: string;
}

const MAX_FIELD_LENGTH = 200;

/**
 * The prefix of a fae's log lines: `[fae]`, or `[fae helper]` for the fae
 * its host named helper (FAE_NAME). Faes of one host share the host's main
 * worker, and so its log.
 */
export const logPrefixFor = (name: string) => (name === 'fae' ? '[fae]' : `[fae ${name}]`);
harden(logPrefixFor);

const renderValue = (value: unknown): string => {
  let text: string;
  if (typeof value === 'string') {
    text = /^[\w.:/@#-]+$/.test(value) ? value : JSON.stringify(value);
  } else if (typeof value === 'bigint') {
    text = `${value}`;
  } else if (value instanceof Error) {
    text = JSON.stringify(value.message);
  } else {
    text = String(value);
  }
  return text.length > MAX_FIELD_LENGTH
    ? `${text.slice(0, MAX_FIELD_LENGTH)}…`
    : text;
};

const renderDetail = (detail: unknown) => {
  try {
    return JSON.stringify(
      detail,
      (_key, value) => (typeof value === 'bigint' ? `${value}n` : value),
      2,
    );
  } catch {
    return String(detail);
  }
};

export const makeLogger = ({
  redact,
  debug = false,
  // eslint-disable-next-line no-console
  write = line => console.log(line),
  prefix = '[fae]',
}: LoggerOptions): Logger => {
  const opening = (level: string) => [prefix, level].filter(Boolean).join(' ');
  const eventOpening = opening('');
  const warningOpening = opening('warning');
  // Built by appending: a turn logs a few lines, and making arrays of a
  // line's parts to join cost some 2 µs a line under lockdown.
  const line = (start: string, name: string, fields: LogFields = {}) => {
    let text = start === '' ? name : `${start} ${name}`;
    for (const key of Object.keys(fields)) {
      const value = fields[key];
      if (value !== undefined) text += ` ${key}=${renderValue(value)}`;
    }
    write(redact(text));
  };
  return harden({
    event: (name: string, fields?: LogFields) => line(eventOpening, name, fields),
    warn: (name: string, fields?: LogFields) => line(warningOpening, name, fields),
    debug: (name: string, detail: () => unknown) => {
      if (debug) {
        write(redact(`${prefix} debug ${name}\n${renderDetail(detail())}`));
      }
    },
  });
};
harden(makeLogger);

/** A logger that drops everything, for tests and quiet embeddings. */
export const silentLogger: Logger = harden({
  event: () => {},
  warn: () => {},
  debug: () => {},
});

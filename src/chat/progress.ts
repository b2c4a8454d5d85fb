// What fae is doing, read from its own log lines ("[fae] tool-called
// tool=greet message=3", src/log.ts), for the status line. Only the event
// name and bare field values are read; anything unrecognised is ignored.

export interface AgentLogLine {
  /** '' for an event, 'warning' or 'debug'. */
  readonly level: '' | 'warning' | 'debug';
  readonly name: string;
  /** Field values as written: bare words, or JSON-quoted text left quoted. */
  readonly fields: Readonly<Record<string, string>>;
}

const PREFIX = '[fae] ';
const FIELD = /(\w+)=("(?:[^"\\]|\\.)*"?|\S+)/g;

/** Parses one "[fae] …" line; undefined for any other line. */
export const parseAgentLine = (line: string): AgentLogLine | undefined => {
  if (!line.startsWith(PREFIX)) return undefined;
  const rest = line.slice(PREFIX.length);
  const [first = '', second = ''] = rest.split(' ', 2);
  const level = first === 'warning' || first === 'debug' ? first : '';
  const name = level === '' ? first : second;
  if (name === '') return undefined;
  const fieldText = rest.slice(level === '' ? first.length : first.length + 1 + second.length);
  const fields: Record<string, string> = {};
  for (const [, key, value] of fieldText.matchAll(FIELD)) fields[key] = value;
  return harden({ level, name, fields });
};
harden(parseAgentLine);

/** A field's value as text: a JSON-quoted value unquoted, undefined when absent. */
export const fieldText = (line: AgentLogLine, key: string): string | undefined => {
  const value = line.fields[key];
  if (value === undefined || !value.startsWith('"')) return value;
  try {
    return String(JSON.parse(value));
  } catch {
    return value.slice(1);
  }
};
harden(fieldText);

/**
 * The status line's text: undefined while fae has nothing to answer,
 * otherwise what it is doing now.
 */
export const makeProgress = (onChange: (status: string | undefined) => void) => {
  let busy = false;
  let tool: string | undefined;
  let shown: string | undefined;

  const update = () => {
    let status: string | undefined;
    if (busy) status = tool === undefined ? 'fae is thinking' : `fae is calling ${tool}`;
    if (status !== shown) {
      shown = status;
      onChange(status);
    }
  };

  return harden({
    /** Whether any message typed by the user still waits for fae's answer. */
    setBusy: (value: boolean) => {
      busy = value;
      if (!busy) tool = undefined;
      update();
    },
    /** Feeds one of fae's log lines. */
    agentLine: (line: AgentLogLine) => {
      if (line.name === 'message-received' || line.name === 'reply-sent') {
        tool = undefined;
      } else if (line.name === 'tool-called' && line.fields.tool !== undefined) {
        tool = line.fields.tool;
        // Every call is news, even a second call of the same tool.
        shown = undefined;
      }
      update();
    },
    /** An answer arrived: fae is back to thinking about what remains. */
    answered: () => {
      tool = undefined;
      update();
    },
  });
};
harden(makeProgress);
export type Progress = ReturnType<typeof makeProgress>;

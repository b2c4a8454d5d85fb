// Helpers for the tool registry's tests: named tools made in the local
// daemon, and waiting for a log line fae writes.
import { E } from '@endo/far';
import { makeFaeTool } from '../../src/tool-kit/make-fae-tool.js';
import type { LocalDaemon } from './daemon.js';
import { makeToolCaplet } from './tool-caplets.js';

// `any`: remote references.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

/** A tool called `name` (its schema name) that answers `${name} ran`. */
export const makeNamedTool = (name: string) =>
  makeFaeTool({
    name,
    description: `The ${name} tool.`,
    parameters: {},
    required: [],
    help: `The ${name} tool.`,
    execute: async () => `${name} ran`,
  });

/** Makes tool `name` in the host and binds it under `agent`'s tools/ as `petName`. */
export const installTool = async (
  daemon: LocalDaemon,
  host: Far,
  agentName: string,
  name: string,
  petName = name,
) => {
  await makeToolCaplet(daemon, `made-${name}`, () => makeNamedTool(name));
  await E(host).copy([`made-${name}`], [agentName, 'tools', petName]);
};

/**
 * Resolves once a line containing every one of `parts` has been logged
 * (counting from line `from`); rejects after `timeoutMs`.
 */
export const waitForLog = async (
  logs: readonly string[],
  parts: readonly string[],
  { from = 0, timeoutMs = 5000 } = {},
): Promise<string> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = logs.slice(from).find(text => parts.every(part => text.includes(part)));
    if (line !== undefined) return line;
    if (Date.now() > deadline) {
      throw Error(`No log line with ${JSON.stringify(parts)} within ${timeoutMs} ms; got:\n${logs.join('\n')}`);
    }
    // Polling on purpose: log lines are written synchronously elsewhere.
    await new Promise(resolve => setTimeout(resolve, 5));
  }
};

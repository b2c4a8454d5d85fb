// A capability caplet: one formula per tool (or attenuated copy) in the
// host's folder `mcp-<name>/`. Its powers are the bridge; its env says
// which tool, and for a copy its name and bounds. It only asks the bridge,
// so the capability it answers is the bridge's caretaker forwarder, and
// after a restart the same formula asks the bridge's new incarnation.
import { E } from '@endo/far';
import { q } from '@endo/errors';
import type { CapletOptions } from '../tool-kit/make-fae-tool.js';

// `any`: the bridge is a remote reference.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

export const make = (bridge: Far, _context: unknown, { env = {} }: CapletOptions = {}) => {
  const { FAE_MCP_TOOL: tool, FAE_MCP_COPY: copy, FAE_MCP_BOUNDS: bounds } = env;
  if (tool === undefined || tool === '') throw Error(`An MCP capability needs FAE_MCP_TOOL, the MCP name of its tool; its env has ${q(Object.keys(env))}`);
  return copy === undefined || copy === '' ? E(bridge).capability(tool) : E(bridge).capability(tool, copy, bounds ?? '{}');
};
harden(make);

// One MCP tool as a FaeTool capability: what the host keeps in its folder
// and mails to fae. It forwards through its caretaker (so revoking it, or
// the tool it copies, or the whole server, cuts it off at the next call),
// checks an attenuated copy's bounds before anything reaches the server,
// and stops a call fae gives up on: the abort reaches the SDK, which tells
// the server with notifications/cancelled.
import { makeExo } from '@endo/exo';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { CheckingFaeToolInterface } from '../tool-kit/fae-tool-interface.js';
import type { Caretaker } from './caretaker.js';
import { applyBounds, boundedInputSchema, describeBounds, type Bounds } from './bounds.js';
import { objectSchema, offeredSchema } from './offered-schema.js';
import { resultText } from './call-result.js';
import type { ToolNaming } from './tool-names.js';

/** The tool as the server offers it now, and the way to call it. */
export interface ToolTarget {
  /** The server's current description of the tool; throws when it no longer offers it. */
  readonly current: () => { readonly tool: Tool; readonly naming: ToolNaming };
  readonly call: (args: Readonly<Record<string, unknown>>, signal: AbortSignal) => Promise<unknown>;
  /** The server, for help texts. */
  readonly server: string;
}

/** An attenuated copy: its own name and its bounds. */
export interface CopyOf {
  readonly petName: string;
  readonly bounds: Bounds;
}

const exoName = (name: string) => `Mcp_${name}`;

export const makeToolCapability = (caretaker: Caretaker<ToolTarget>, copy?: CopyOf) => {
  const running = new Map<string, AbortController>();
  const schema = () => {
    const { tool, naming } = caretaker.use().current();
    if (copy === undefined) return offeredSchema({ tool, schemaName: naming.schemaName });
    const description = `${tool.description ?? tool.title ?? ''} (A bounded copy of ${naming.schemaName}: ${describeBounds(copy.bounds)}.)`.trim();
    return offeredSchema({
      tool,
      // A copy's pet name is a valid schema name, and tells it from the tool it copies.
      schemaName: copy.petName,
      description,
      parameters: boundedInputSchema(copy.bounds, objectSchema(tool.inputSchema)),
    });
  };
  /** What the server is sent for `args`: within the copy's bounds; throws when the tool is revoked or they are out of bounds. */
  const boundedArgs = (args: Record<string, unknown>) => {
    const target = caretaker.use();
    const name = copy?.petName ?? target.current().naming.schemaName;
    if (copy === undefined) return { target, name, sent: args };
    try {
      return { target, name, sent: applyBounds(copy.bounds, args) };
    } catch (error) {
      throw Error(`${name}: ${(error as Error).message}; nothing was sent to the server`);
    }
  };
  return makeExo(exoName(copy?.petName ?? 'tool'), CheckingFaeToolInterface, {
    schema: () => schema() as unknown as Record<string, unknown>,
    // Before fae asks its host: a revoked tool, or arguments out of bounds, are refused unasked.
    check: async (args: Record<string, unknown>) => {
      boundedArgs(args);
    },
    execute: async (args: Record<string, unknown>, callId?: string) => {
      const { target, name, sent } = boundedArgs(args);
      // Never hardened: a frozen controller could not abort.
      const controller = new AbortController();
      if (callId !== undefined) running.set(callId, controller);
      try {
        return resultText(name, await target.call(sent, controller.signal));
      } finally {
        if (callId !== undefined) running.delete(callId);
      }
    },
    cancel: (callId: string) => {
      running.get(callId)?.abort(Error('fae cancelled the call'));
    },
    help: () => {
      try {
        const target = caretaker.use();
        const { tool, naming } = target.current();
        const bounded = copy === undefined ? '' : ` This copy is bounded: ${describeBounds(copy.bounds)}.`;
        return `The tool ${JSON.stringify(tool.name)} of the MCP server ${target.server}, offered as ${copy?.petName ?? naming.schemaName}.${bounded} Its authority is the server's; the host can revoke it.`;
      } catch (error) {
        return (error as Error).message;
      }
    },
  });
};
harden(makeToolCapability);

// The FaeTool schema of an MCP tool: its name mapped to what providers
// accept (tool-names.ts), its description and input schema as the server
// gives them, and the approval default its annotations imply: a tool the
// server marks `readOnlyHint` runs unasked; one marked destructive, or
// not marked at all, asks the host first (fae reads `needsApproval` and
// never shows it to the model).
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { isRecord } from '../is-record.js';

export const needsApprovalFor = (tool: Tool): boolean => tool.annotations?.readOnlyHint !== true;
harden(needsApprovalFor);

/** The input schema as fae accepts it: an object schema, plain JSON data. */
const objectSchema = (inputSchema: unknown): Record<string, unknown> => {
  const plain: unknown = JSON.parse(JSON.stringify(inputSchema ?? {}));
  return isRecord(plain) ? { ...plain, type: 'object' } : { type: 'object', properties: {} };
};

export const offeredSchema = ({
  tool,
  schemaName,
  description,
  parameters,
}: {
  tool: Tool;
  schemaName: string;
  description?: string;
  parameters?: Readonly<Record<string, unknown>>;
}) =>
  harden({
    type: 'function',
    function: {
      name: schemaName,
      description: description ?? tool.description ?? tool.title ?? '',
      parameters: parameters ?? objectSchema(tool.inputSchema),
    },
    ...(needsApprovalFor(tool) ? { needsApproval: true } : {}),
  });
harden(offeredSchema);

export { objectSchema };

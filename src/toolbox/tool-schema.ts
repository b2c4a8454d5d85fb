// A tool's schema comes from a capability we do not control. One malformed
// schema sent to a provider makes every request fail (upstream F14), so each
// is checked and normalised here before the model ever sees it.
import { q } from '@endo/errors';
import type { JsonSchema, ToolSchema } from '../../providers/types.js';
import { isRecord } from '../is-record.js';

// The strictest name rule among the providers (OpenAI and Anthropic).
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export type SchemaCheck =
  | {
      readonly ok: true;
      readonly schema: ToolSchema;
      /**
       * The tool asks that the host approve each call (`needsApproval: true`
       * beside `function`); never part of what the model is sent.
       */
      readonly needsApproval: boolean;
    }
  | { readonly ok: false; readonly problem: string };

/** Checks a schema() result and returns a clean, hardened copy of it. */
export const checkToolSchema = (value: unknown): SchemaCheck => {
  const fail = (problem: string): SchemaCheck => harden({ ok: false, problem });
  if (!isRecord(value)) {
    return fail(`schema() must return a record, not ${q(value)}`);
  }
  if (value.type !== undefined && value.type !== 'function') {
    return fail(`schema type must be "function", not ${q(value.type)}`);
  }
  const fn = value.function;
  if (!isRecord(fn)) {
    return fail('schema has no "function" record');
  }
  const { name, description = '', parameters } = fn;
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    return fail(
      `tool name must be 1-64 letters, digits, "_" or "-", not ${q(name)}`,
    );
  }
  if (typeof description !== 'string') {
    return fail(`description of ${q(name)} must be a string`);
  }
  let cleanParameters: JsonSchema = { type: 'object', properties: {} };
  if (parameters !== undefined) {
    if (!isRecord(parameters)) {
      return fail(`parameters of ${q(name)} must be a JSON Schema object`);
    }
    if (parameters.type !== undefined && parameters.type !== 'object') {
      return fail(
        `parameters of ${q(name)} must have type "object", not ${q(parameters.type)}`,
      );
    }
    if (parameters.properties !== undefined && !isRecord(parameters.properties)) {
      return fail(`parameters.properties of ${q(name)} must be a record`);
    }
    // A structured clone drops anything that is not plain JSON data.
    try {
      cleanParameters = JSON.parse(
        JSON.stringify({ ...parameters, type: 'object' }),
      ) as JsonSchema;
    } catch {
      return fail(`parameters of ${q(name)} are not plain JSON data`);
    }
  }
  if (value.needsApproval !== undefined && typeof value.needsApproval !== 'boolean') {
    return fail(`needsApproval of ${q(name)} must be true or false, not ${q(value.needsApproval)}`);
  }
  return harden({
    ok: true,
    needsApproval: value.needsApproval === true,
    schema: {
      type: 'function',
      function: { name, description, parameters: cleanParameters },
    },
  });
};
harden(checkToolSchema);

// A small prompt however many tools (issue 38). Every tool definition
// travels with every request; past a budget of definition tokens
// (FAE_TOOL_TOKENS), fae offers the built-ins and, of the tools from
// tools/, those that fit in order (FaeTools before the methods of other
// capabilities), and puts the rest in a catalogue the
// model reaches within the same turn: findTools answers their definitions
// (as a tool result, at the end of the prompt) and callTool calls one by
// name. The offered list changes only when the tools do, so a provider's
// cached prefix holds however many tools are found and called.
import { q } from '@endo/errors';
import type { ToolSchema } from '../../providers/types.js';
import { estimateSchemas } from '../conversations/requests/tokens.js';
import type { DiscoveredTools } from './discovered-tools.js';
import { type BuiltInSpec, builtInSchema, defineBuiltIn } from './built-ins/built-in-tool.js';
import { isRecord } from '../is-record.js';

export const FIND_TOOLS = 'findTools';
export const CALL_TOOL = 'callTool';

/** At most this many definitions one findTools answers in full. */
const MOST_FOUND = 8;

/** The words of a text, for matching: lower case, split at anything not a letter or digit (camelCase too). */
const wordsOf = (text: string) =>
  text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(word => word.length > 1);

/** How well `schema` matches the query's words: name words count twice. */
const scoreOf = (schema: ToolSchema, query: readonly string[]) => {
  const name = new Set(wordsOf(schema.function.name));
  const description = new Set(wordsOf(schema.function.description ?? ''));
  return query.reduce((sum, word) => sum + (name.has(word) ? 2 : 0) + (description.has(word) ? 1 : 0), 0);
};

const firstSentence = (text: string) => /^[^.!?\n]*[.!?]?/.exec(text)?.[0] ?? text;

/** A catalogue tool: its definition, known at once, and the tool. */
const catalogueTool = (spec: BuiltInSpec) => {
  const [, tool] = defineBuiltIn(spec);
  return harden({ schema: builtInSchema(spec.name, spec.description, spec.parameters, spec.required), tool });
};

/** findTools over the catalogue `deferred`: every name in a line, or the best matches in full. */
const makeFindTools = (deferred: readonly ToolSchema[]) =>
  catalogueTool({
    name: FIND_TOOLS,
    description: `Find more tools: ${deferred.length} tools are not in your list, to keep it short. Give words of what you need (a capability's name, a method, what it does); the answer holds the matching tools' definitions. Then call one with ${CALL_TOOL}. Without words, it lists every name.`,
    parameters: { query: { type: 'string', description: 'Words of what you need, such as "counter increment".' } },
    required: [],
    execute: async args => {
      const query = wordsOf(typeof args.query === 'string' ? args.query : '');
      if (query.length === 0) {
        return [`The tools you can call with ${CALL_TOOL}:`, ...deferred.map(schema => `- ${schema.function.name}: ${firstSentence(schema.function.description ?? '')}`)].join('\n');
      }
      const found = deferred
        .map(schema => ({ schema, score: scoreOf(schema, query) }))
        .filter(({ score }) => score > 0)
        .sort((a, b) => b.score - a.score)
        .slice(0, MOST_FOUND);
      if (found.length === 0) return `No tool matches ${q(args.query)}; call ${FIND_TOOLS} without words for every name.`;
      return [
        `Call these with ${CALL_TOOL}, giving "name" and "arguments" as the definition's parameters say:`,
        ...found.map(({ schema }) => JSON.stringify(schema.function)),
      ].join('\n');
    },
  });

/** callTool is never run itself: the turn runs the tool it names (namedCall). */
const CALL = catalogueTool({
    name: CALL_TOOL,
    description: `Call a tool that ${FIND_TOOLS} found, by its name, with its arguments.`,
    parameters: {
      name: { type: 'string', description: `The tool's name, as ${FIND_TOOLS} gave it.` },
      arguments: { type: 'object', description: "The tool's arguments, as its definition says." },
    },
    required: ['name'],
    execute: async () => {
      throw Error(`${CALL_TOOL} runs only in a turn`);
    },
  });

/**
 * The call the model meant: for callTool, the tool it names with its
 * arguments (so approvals and authority see that tool); any other call as
 * it is. Throws, for the model, when callTool names no tool it may call.
 */
export const namedCall = (name: string, args: Readonly<Record<string, unknown>>, tools: DiscoveredTools) => {
  if (name !== CALL_TOOL || !tools.toolMap.has(CALL_TOOL)) return { name, args };
  const target = args.name;
  const given = args.arguments ?? {};
  if (typeof target !== 'string' || target === CALL_TOOL) throw Error(`"name" must be the name of a tool ${FIND_TOOLS} found, not ${q(target)}`);
  if (!tools.toolMap.has(target)) throw Error(`there is no tool ${q(target)}; ${FIND_TOOLS} finds the tools you can call`);
  if (!isRecord(given)) throw Error(`"arguments" must be an object of the tool's arguments, not ${q(given)}`);
  return { name: target, args: harden({ ...given }) };
};
harden(namedCall);

const budgeted = new WeakMap<DiscoveredTools, Map<number, DiscoveredTools>>();

/**
 * `tools` as offered within `budgetTokens` of definitions: all of them when
 * they fit; else the built-ins, the tools from tools/ that fit (in order,
 * up to the first that does not), findTools and callTool, with every tool
 * still callable. The same `tools` always gives the same answer.
 */
export const withinToolBudget = (tools: DiscoveredTools, budgetTokens: number): DiscoveredTools => {
  if (estimateSchemas(tools.schemas) <= budgetTokens) return tools;
  let byBudget = budgeted.get(tools);
  const known = byBudget?.get(budgetTokens);
  if (known !== undefined) return known;
  // Tools made for fae first (few, small, and given on purpose), then the methods of other capabilities.
  const isMethod = (schema: ToolSchema) => tools.origins.get(schema.function.name)?.method !== undefined;
  const fromTools = tools.schemas.filter(schema => tools.origins.has(schema.function.name));
  const fromDirectory = [...fromTools.filter(schema => !isMethod(schema)), ...fromTools.filter(isMethod)];
  const builtIns = tools.schemas.filter(schema => !tools.origins.has(schema.function.name));
  // The catalogue's own two definitions count against the budget too.
  let room = budgetTokens - estimateSchemas(harden([...builtIns, makeFindTools(fromDirectory).schema, CALL.schema]));
  const offered: ToolSchema[] = [];
  let index = 0;
  for (; index < fromDirectory.length; index += 1) {
    const cost = estimateSchemas([fromDirectory[index]]);
    if (cost > room) break;
    room -= cost;
    offered.push(fromDirectory[index]);
  }
  const find = makeFindTools(fromDirectory.slice(index));
  const result: DiscoveredTools = harden({
    schemas: [...builtIns, ...offered, find.schema, CALL.schema],
    toolMap: new Map([...tools.toolMap, [FIND_TOOLS, find.tool], [CALL_TOOL, CALL.tool]]),
    origins: tools.origins,
  });
  byBudget ??= new Map();
  byBudget.set(budgetTokens, result);
  budgeted.set(tools, byBudget);
  return result;
};
harden(withinToolBudget);

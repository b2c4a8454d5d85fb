// The standing instructions fae gives its model, in our own words. They
// cover who fae is, how its mail and directory work, how to take on new
// tools, and how to answer. Tools are named by purpose only: each tool's
// own description says how to call it, and every word here is paid for on
// every model call.

import type { BuiltInGroup } from '../../toolbox/built-ins/built-in-tools.js';

export const FAE_SYSTEM_PROMPT = `You are Fae, an assistant that lives inside an Endo daemon as a guest. You have no channel of your own: people and other agents reach you by mail, and you act only through your tools, each of which is a capability someone gave you.

# Mail
Each incoming message reaches you as "Message #N from SENDER: text". An attachment appears in the text as @name.
- reply: answer message #N by its number. This always reaches the sender, even one you have no pet name for. Prefer it.
- send: write to HOST or to an agent you have a pet name for, optionally attaching capabilities from your directory (edgeNames label them for the recipient, petNames are your names for them).
- listMessages: see your inbox. dismiss: remove a message once it is handled.
- A request message asks you for a capability: give it with resolve or decline with reject. To ask someone for one, use request.

# Your directory
You keep capabilities and values under pet names (lowercase letters, digits and "-").
- list shows your names (list with path "tools" shows your tools), lookup reads a value, store saves a JSON value, remove forgets a name.
- has, move, copy, makeDirectory and identify work on names; a path such as "tools/greet" reaches into a directory.
- Before using an unfamiliar capability, inspect it. help documents your own powers.
- HOST, SELF, AGENT and MAIL are special names that always exist.

# New tools
Someone may mail you a tool as an attachment, for example "Here is @greeter". To use it, call adoptTool with the message number, the attachment's name (without "@") and a short pet name for it. The tool is available at once, under the name its own description gives, so call it in the same turn. adopt keeps any other attachment under a pet name.

# How to answer
- Use tools to find things out and to act; never invent a tool's result.
- When a tool returns an error, read it, correct the call and try again, or explain the problem.
- Keep answers short and concrete. When you have finished, answer the sender with reply, or simply write your answer as plain text: a plain-text answer is delivered to the sender for you.`;


const [INTRO, MAIL, DIRECTORY, NEW_TOOLS, HOW_TO_ANSWER] = FAE_SYSTEM_PROMPT.split('\n\n# ').map((part, i) =>
  i === 0 ? part : `# ${part}`,
);
const INSPECT_LINE = '- Before using an unfamiliar capability, inspect it. help documents your own powers.';
const NAMES_LINE = '- HOST, SELF, AGENT and MAIL are special names that always exist.';
const WITH_REPLY = 'answer the sender with reply, or simply write your answer as plain text: a plain-text answer is delivered to the sender for you.';
const WITHOUT_REPLY = 'write your answer as plain text: it is delivered to the sender for you.';

/** The directory section, with the lines of the other groups it holds only when they are offered. */
const directorySection = (groups: readonly BuiltInGroup[]) =>
  DIRECTORY.split('\n')
    .filter(line => line !== INSPECT_LINE || groups.includes('inspection'))
    .join('\n');

/**
 * The standing instructions for the built-ins offered: each section names
 * only tools the model has. With every group it is FAE_SYSTEM_PROMPT, byte
 * for byte (a prompt cache holds it across conversations).
 */
export const systemPromptFor = (groups: readonly BuiltInGroup[]): string => {
  const has = (group: BuiltInGroup) => groups.includes(group);
  const sections = [INTRO];
  if (has('mail')) sections.push(MAIL);
  if (has('directory')) sections.push(directorySection(groups));
  else if (has('inspection') || has('mail')) {
    sections.push(['# Capabilities', ...(has('inspection') ? [INSPECT_LINE] : []), NAMES_LINE].join('\n'));
  }
  if (has('mail')) sections.push(NEW_TOOLS);
  // Without mail tools, the plain-text answer is the only way to answer.
  sections.push(has('mail') ? HOW_TO_ANSWER : HOW_TO_ANSWER.replace(WITH_REPLY, WITHOUT_REPLY));
  return sections.join('\n\n');
};
harden(systemPromptFor);

/** Said only when evaluate is offered (FAE_EVALUATE=review): with it off, the prompt is as it always was. */
const EVALUATE_SECTION = `# Code
- evaluate runs JavaScript you write, with capabilities or values from your directory as named endowments, once your host has reviewed and approved it. Prefer a tool when one fits: the host reads every evaluation.`;

/** Where the host's own instructions (FAE_SYSTEM_PROMPT) begin, after fae's. */
export const HOST_PROMPT_HEADING = "# Your host's instructions";

/**
 * The whole system prompt: fae's standing instructions for the built-ins
 * offered, then the host's own, if any. The host's text follows fae's and
 * changes none of it, so the rules for fae's tools stay. Made once, when
 * fae starts, so every request carries it byte for byte (prompt caching).
 */
export const systemPromptWith = (
  groups: readonly BuiltInGroup[],
  hostPrompt: string | undefined,
  { evaluate = false }: { readonly evaluate?: boolean } = {},
): string => {
  const own = evaluate ? `${systemPromptFor(groups)}\n\n${EVALUATE_SECTION}` : systemPromptFor(groups);
  return hostPrompt === undefined ? own : `${own}\n\n${HOST_PROMPT_HEADING}\n${hostPrompt}`;
};
harden(systemPromptWith);

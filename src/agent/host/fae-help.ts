// The Fae exo's help() texts: what a person in the Endo UI reads.

export const FAE_HELP: Readonly<Record<string, string>> = harden({
  '': `Fae is an LLM agent living in this daemon as a guest. Mail it (@fae) a request in plain words and it answers by mail, using its tools. Mail it a tool capability (a FaeTool) and ask it to adopt it; it can use the tool at once. Mail it /help for the commands it answers itself (/help, /tools, /status for its host, /forget).
Methods: help(methodName?), status(), whenStarted(), followEvents(), revokeGrant(number).`,
  revokeGrant:
    'revokeGrant(number) revokes the standing approval of that number (status().approvals.grants): from the next call on, fae asks you again. Resolves whether there was one.',
  help: 'help(methodName?) returns this text, or the text for one method.',
  whenStarted:
    'whenStarted() resolves to status() once startup has finished, successfully or not.',
  followEvents:
    'followEvents() returns an async iterator (call next() with E) of what fae does from now on: { type: turn-started | tool-called | progress | answered | turn-done, message (its number), … }; a follower that falls behind gets { type: missed, count }.',
  status:
    'status() returns { state, handledMessages, inputTokens, outputTokens, provider, model, llm, lastError, lastErrorAt, … }: state is starting, running, stopped or failed; llm says whether fae has its language model settings yet; lastErrorAt is when lastError happened; the token counts add up what the LLM reported; storage is ok, or unavailable while the daemon refuses fae\'s conversation store (storageError says why, unstoredTurns how many turns wait in memory to be stored); approvals says what needs your approval (policy, and policyFrom: FAE_APPROVE or the value approval-policy), how many calls wait for your answer, and your standing approvals (grants, by number).',
});

export const helpFor = (texts: Readonly<Record<string, string>>, methodName?: string) =>
  methodName === undefined
    ? texts['']
    : (texts[methodName] ?? `No documentation available for method ${JSON.stringify(methodName)}.`);
harden(helpFor);

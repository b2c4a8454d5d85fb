// The host's own instructions for a fae may be long, and a command line is
// a poor place for them: FAE_SYSTEM_PROMPT_FILE names a file that holds
// them, which the setup script reads on the host (setting-file.ts) and
// hands to fae's caplet as FAE_SYSTEM_PROMPT. fae appends that text to its
// own system prompt (src/agent/turn/system-prompt.ts).
import { q } from '@endo/errors';
import { hostPromptExcess } from '../agent/config.js';
import { invocationDirectory } from './provisioning.js';
import type { Env } from './env.js';
import { readSettingFile } from './setting-file.js';

const PROMPT = 'FAE_SYSTEM_PROMPT';
const PROMPT_FILE = 'FAE_SYSTEM_PROMPT_FILE';

/**
 * The environment with FAE_SYSTEM_PROMPT read from FAE_SYSTEM_PROMPT_FILE
 * when that is set (a relative name is taken from where the command was
 * run). Throws for a file that is missing, unreadable, empty or too long,
 * and when both are set.
 */
export const resolveSystemPromptFile = (env: Env): Env => {
  const file = env[PROMPT_FILE]?.trim();
  if (file === undefined || file === '') return env;
  if ((env[PROMPT] ?? '').trim() !== '') {
    throw Error(`both ${PROMPT} and ${PROMPT_FILE} are set; set only one of them`);
  }
  const { where, text } = readSettingFile(PROMPT_FILE, file, invocationDirectory(env), 'your instructions for fae');
  const named = `${PROMPT_FILE} names ${q(where)}`;
  const prompt = text.trim();
  if (prompt === '') {
    throw Error(`${named}, which is empty; write your instructions for fae into it, or leave ${PROMPT_FILE} unset`);
  }
  const excess = hostPromptExcess(prompt);
  if (excess !== undefined) throw Error(`${named}, whose text is ${excess}`);
  return harden({ ...env, [PROMPT]: prompt });
};
harden(resolveSystemPromptFile);

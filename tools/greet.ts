// tools/: the tool caplets fae ships, each run by the daemon on its own.
// They import src/tool-kit and what is below it (scripts/check-imports.mjs).
//
// Example tool caplet: a greeting in one of a few languages. It needs no
// powers; it shows the smallest possible FaeTool.
import { makeFaeTool } from '../src/tool-kit/make-fae-tool.js';

const GREETINGS = harden({
  english: 'Hello',
  spanish: 'Hola',
  french: 'Bonjour',
  german: 'Hallo',
  japanese: 'Konnichiwa',
});
type Language = keyof typeof GREETINGS;
const LANGUAGES = harden(Object.keys(GREETINGS) as Language[]);

export const make = (_powers?: unknown, _context?: unknown, _options?: unknown) =>
  makeFaeTool({
    name: 'greet',
    description:
      'Generate a greeting message for a given name, optionally in a specified language.',
    parameters: {
      name: { type: 'string', description: 'The name of the person to greet.' },
      language: {
        type: 'string',
        description: `Language of the greeting: ${LANGUAGES.join(', ')}. Defaults to english.`,
        enum: LANGUAGES,
      },
    },
    required: ['name'],
    help: `Greets someone by name in ${LANGUAGES.join(', ')}. Needs no authority.`,
    execute: ({ name, language = 'english' }) => {
      const trimmed = name.trim();
      if (trimmed === '') {
        throw Error('"name" is empty; give the name of the person to greet');
      }
      return `${GREETINGS[language]}, ${trimmed}!`;
    },
  });
harden(make);

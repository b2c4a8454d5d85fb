// `evaluate` (FAE_EVALUATE=review): JavaScript the model writes, run with
// named endowments from fae's directory once the host has reviewed it. The
// review is not here: on February the daemon asks the host itself (its
// eval-request, answered with `endo approve-eval`); on May and August,
// where evaluate runs at once, fae asks first (src/agent/authority/approvals.ts). The
// endowments are given through the sealed view (sealed-powers.ts), so the
// code never receives a sealed name or fae's own directory.
import { E } from '@endo/far';
import { q } from '@endo/errors';
import type { FaeTool } from '../discovered-tools.js';
import { readString } from './built-in-arguments.js';
import { type Args, type PowersIn, defineBuiltIn } from './built-in-tool.js';

/** A name the code can use for an endowment: a JavaScript identifier. */
const CODE_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The endowments as code names and the directory's names for them. */
const readEndowments = (args: Args) => {
  const value = args.endowments ?? {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw Error(`endowments must be an object of code name → pet name, such as {"notes": "notes"}, not ${q(value)}`);
  }
  const entries = Object.entries(value);
  for (const [codeName, petName] of entries) {
    if (!CODE_NAME.test(codeName)) throw Error(`endowments: ${q(codeName)} is not a name the code can use; use a JavaScript identifier`);
    if (typeof petName !== 'string' || petName === '') {
      throw Error(`endowments: ${q(codeName)} must name something in your directory, such as "notes" or "tools/greet", not ${q(petName)}`);
    }
  }
  return harden({ codeNames: entries.map(([codeName]) => codeName), petNames: entries.map(([, petName]) => petName as string) });
};

export const makeEvaluateTool = (powersIn: PowersIn): readonly [string, FaeTool] =>
  defineBuiltIn({
    name: 'evaluate',
    description:
      'Run JavaScript you write, once your host has reviewed and approved it: source is an expression, or a program whose last statement gives the result. endowments gives the code capabilities or values from your directory under names of your choosing, as {"codeName": "petName"}. E, Far, M and makeExo are there too. It runs in a fresh worker; its result, or its error, comes back to you. The host sees the code and may refuse it.',
    parameters: {
      source: { type: 'string', description: 'The JavaScript to run.' },
      endowments: {
        type: 'object',
        description: 'Code name → pet name of what the code receives, e.g. {"greeter": "greeter"} (a path such as "tools/greet" works on newer daemons only).',
        additionalProperties: { type: 'string' },
      },
    },
    required: ['source'],
    execute: async (args, scope) => {
      const source = readString(args, 'source');
      const { codeNames, petNames } = readEndowments(args);
      return E(powersIn(scope)).requestEvaluation(source, codeNames, petNames);
    },
  });
harden(makeEvaluateTool);

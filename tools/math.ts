// Example tool caplet: arithmetic on two numbers. Operations that have no
// finite answer are errors the model can read, not NaN or Infinity.
import { makeFaeTool } from '../src/tool-kit/make-fae-tool.js';

const OPERATIONS = harden({
  add: (a: number, b: number) => a + b,
  subtract: (a: number, b: number) => a - b,
  multiply: (a: number, b: number) => a * b,
  divide: (a: number, b: number) => a / b,
  modulo: (a: number, b: number) => a % b,
  power: (a: number, b: number) => a ** b,
});
type Operation = keyof typeof OPERATIONS;
const NAMES = harden(Object.keys(OPERATIONS) as Operation[]);

export const make = (_powers?: unknown, _context?: unknown, _options?: unknown) =>
  makeFaeTool({
    name: 'math',
    description: `Perform basic arithmetic on two numbers a and b: ${NAMES.join(', ')}.`,
    parameters: {
      operation: {
        type: 'string',
        description: `The operation: ${NAMES.join(', ')}.`,
        enum: NAMES,
      },
      a: { type: 'number', description: 'First operand.' },
      b: { type: 'number', description: 'Second operand.' },
    },
    required: ['operation', 'a', 'b'],
    help: `Computes a <operation> b for ${NAMES.join(', ')}. Needs no authority.`,
    execute: ({ operation, a, b }) => {
      if (b === 0 && (operation === 'divide' || operation === 'modulo')) {
        throw Error(`cannot ${operation} ${a} by zero; b must not be 0`);
      }
      const result = OPERATIONS[operation](a, b);
      if (!Number.isFinite(result)) {
        throw Error(
          `${a} ${operation} ${b} has no finite result (${result}); use smaller operands`,
        );
      }
      return String(result);
    },
  });
harden(make);

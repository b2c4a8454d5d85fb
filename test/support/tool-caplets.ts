// Tool capabilities for the agent's scenario tests, made inside the local
// daemon so they reach fae as far references, as mailed tools do.
import { E } from '@endo/far';
import { makeExo } from '@endo/exo';
import { makePromiseKit } from '@endo/promise-kit';
import { FaeToolInterface } from '../../src/tool-kit/fae-tool-interface.js';
import { makeFaeTool } from '../../src/tool-kit/make-fae-tool.js';
import type { LocalDaemon } from './daemon.js';

// `any`: remote references.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

/** The file: URL of a built tool caplet, e.g. toolUrl('greet'). */
export const toolUrl = (name: string) =>
  new URL(`../../tools/${name}.js`, import.meta.url).href;

/** Makes one of the shipped tools in the host under `resultName`. */
export const makeShippedTool = (host: Far, name: string, resultName: string) =>
  E(host).makeUnconfined('MAIN', toolUrl(name), { resultName });

/** Makes a caplet from an in-process exo maker, bound in the host. */
export const makeToolCaplet = (daemon: LocalDaemon, resultName: string, make: () => unknown) =>
  daemon.makeCaplet(() => make(), { resultName });

/** A tool whose execute never settles. */
export const makeHangingTool = () =>
  makeFaeTool({
    name: 'wait',
    description: 'Waits forever.',
    parameters: {},
    required: [],
    help: 'Never answers.',
    execute: () => new Promise<string>(() => {}),
  });

/**
 * A tool offering cancellation whose calls run until they are cancelled:
 * `started` resolves when a call begins, `told` when a call is cancelled.
 */
export const makeCancellableTool = () => {
  const started = makePromiseKit<void>();
  const told = makePromiseKit<void>();
  const tool = makeFaeTool({
    name: 'work',
    description: 'Works until it is cancelled.',
    parameters: {},
    required: [],
    help: 'Runs until cancelled.',
    cancellable: true,
    execute: (_args, { signal }) =>
      new Promise<string>(resolve => {
        started.resolve();
        signal.addEventListener('abort', () => {
          told.resolve();
          resolve('stopped');
        });
      }),
  });
  return { tool, started: started.promise, told: told.promise };
};

/** A tool that always fails with the given message. */
export const makeFailingTool = (message: string) =>
  makeFaeTool({
    name: 'explode',
    description: 'Always fails.',
    parameters: {},
    required: [],
    help: 'Fails.',
    execute: () => {
      throw Error(message);
    },
  });

/** A FaeTool-shaped exo whose schema() returns whatever it is given. */
export const makeToolWithSchema = (schema: unknown, result = 'ran') =>
  makeExo('OddTool', FaeToolInterface, {
    schema: () => harden(schema) as Record<string, unknown>,
    execute: async () => result,
    help: () => 'a tool with a hand-written schema',
  });

/**
 * Two tools, `first` and `second`, each of which finishes only after both
 * have started: if fae ran them one by one, neither would ever finish. The
 * events list records starts and ends in order.
 */
export const makeRendezvousTools = () => {
  const events: string[] = [];
  const started = { first: makePromiseKit<void>(), second: makePromiseKit<void>() };
  const make = (name: 'first' | 'second', other: 'first' | 'second') =>
    makeFaeTool({
      name,
      description: `The ${name} of a pair that must run together.`,
      parameters: {},
      required: [],
      help: 'test tool',
      execute: async () => {
        events.push(`${name} started`);
        started[name].resolve();
        await started[other].promise;
        events.push(`${name} finished`);
        return `${name} done`;
      },
    });
  return { events, first: make('first', 'second'), second: make('second', 'first') };
};

/** Two tools that record when they start and end, each taking `ms`. */
export const makeSequenceTools = (ms: number) => {
  const events: string[] = [];
  const make = (name: string) =>
    makeFaeTool({
      name,
      description: `Records ${name}.`,
      parameters: {},
      required: [],
      help: 'test tool',
      execute: async () => {
        events.push(`${name} started`);
        await new Promise(resolve => setTimeout(resolve, ms));
        events.push(`${name} finished`);
        return `${name} done`;
      },
    });
  return { events, first: make('first'), second: make('second') };
};

// Agents side by side, each in its own local daemon in this process,
// taking messages alternately so that all see the same machine; each
// figure is the median over the messages after a warm-up. The first two
// agents are compared (the ratio column); any others are shown beside them
// (the floor, say).
import type { CountedFae, MessageFigures } from './counted-fae.js';

/** Messages before the measured ones, and the measured ones, by default. */
const WARM_UP = 5;
export const ROUNDS = 25;

export interface Rounds {
  /** Messages each agent handles before its figures count. */
  readonly warmUp?: number;
  /** Messages whose figures count. */
  readonly rounds?: number;
}

export const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

type Row = readonly [string, (figures: MessageFigures) => number, number];

export const ROWS: readonly Row[] = [
  ['guest-powers calls before 1st model request', f => f.beforeFirst.guest, 0],
  ['far calls before 1st model request', f => f.beforeFirst.far, 0],
  ['guest-powers calls per message', f => f.perMessage.guest, 0],
  ['far calls per message', f => f.perMessage.far, 0],
  ['arrival → 1st model request (ms)', f => f.toFirstMs, 2],
  ['full turn: arrival → reply (ms)', f => f.turnMs, 2],
  ['arrival → dismissal (ms)', f => f.doneMs, 2],
];

export const cell = (value: number, digits: number) => value.toFixed(digits).padStart(9);
export const ratio = (a: number, b: number) => (b === 0 ? (a === 0 ? '1.00' : '∞') : (a / b).toFixed(2)).padStart(7);

export interface Contender {
  readonly label: string;
  readonly start: () => Promise<CountedFae>;
}

/** The header of a table of `labels`: the first two, their ratio, the rest. */
export const header = (labels: readonly string[]) =>
  `${'figure'.padEnd(46)}${labels.slice(0, 2).map(label => label.padStart(9)).join('')}${'ratio'.padStart(7)}${labels
    .slice(2)
    .map(label => label.padStart(9))
    .join('')}`;

/** A table row: the first two values, their ratio, the rest. */
export const row = (label: string, values: readonly number[], digits: number) =>
  `${label.padEnd(46)}${values.slice(0, 2).map(value => cell(value, digits)).join('')}${ratio(values[0], values[1])}${values
    .slice(2)
    .map(value => cell(value, digits))
    .join('')}`;

/**
 * Runs the contenders side by side with `latencyMs` per daemon call and
 * prints the table under `title`; the medians of each, by row label.
 */
export const sideBySide = async (
  title: string,
  latencyMs: number,
  contenders: readonly Contender[],
  { warmUp = WARM_UP, rounds = ROUNDS }: Rounds = {},
) => {
  const agents: CountedFae[] = [];
  // One after the other: each start makes its daemon's caplets.
  for (const contender of contenders) agents.push(await contender.start());
  const figures: MessageFigures[][] = contenders.map(() => []);
  for (const agent of agents) agent.daemon.setLatency(latencyMs);
  for (let round = 0; round < warmUp + rounds; round += 1) {
    for (const [at, agent] of agents.entries()) {
      // Alternately, one message at a time, so all see the same machine.
      const figure = await agent.message();
      if (round >= warmUp) figures[at].push(figure);
    }
  }
  // One at a time: a stop swaps the console for a quieter one while it runs.
  for (const agent of agents) await agent.stop();
  console.log(`\n${title} (medians of ${rounds} messages each, after ${warmUp})`);
  console.log(header(contenders.map(contender => contender.label)));
  const medians: Record<string, number>[] = contenders.map(() => ({}));
  for (const [label, pick, digits] of ROWS) {
    const values = figures.map(each => median(each.map(pick)));
    values.forEach((value, at) => {
      medians[at][label] = value;
    });
    console.log(row(label, values, digits));
  }
  return medians;
};

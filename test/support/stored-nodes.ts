// What fae has stored under conversations/, read as its host would: every
// generation's directory (`key`), each node's name and its value.
import { E } from '@endo/far';
import type { Far } from './fae-harness.js';
import { until } from './until.js';

export interface StoredNode {
  /** The generation's directory, `<conversation key>-g<n>`. */
  readonly key: string;
  readonly name: string;
  /** As stored: the JSON text of a record (records.ts). */
  readonly value: unknown;
  /** The record it holds, parsed. */
  readonly node: Record<string, unknown>;
}

/** The record a node holds: its text parsed, or (stored before nodes were text) the record itself. */
export const nodeOf = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>;

export const storedNodes = async (fae: Far): Promise<readonly StoredNode[]> => {
  const keys: string[] = await E(fae).list('conversations');
  const nodes = await Promise.all(
    keys.map(async key => {
      const names: string[] = await E(fae).list('conversations', key);
      const values = await Promise.all(names.map(name => E(fae).lookup(['conversations', key, name])));
      return names.map((name, i) => ({ key, name, value: values[i] as unknown, node: nodeOf(values[i]) }));
    }),
  );
  return nodes.flat();
};

/** One stored turn or summary: a node's record, or one of a chunk's turns (records.ts). */
export interface StoredRecord {
  readonly key: string;
  readonly seq: number;
  readonly record: Record<string, unknown>;
}

/** Every record fae has stored, chunks opened, in each generation's order. */
export const storedRecords = async (fae: Far): Promise<readonly StoredRecord[]> =>
  (await storedNodes(fae)).flatMap(({ key, node }) => {
    const records = node.kind === 'chunk' ? (node.turns as Record<string, unknown>[]) : [node];
    return records.map(record => ({ key, seq: record.seq as number, record }));
  });

/**
 * Every record fae has stored, once there are `count` of them or more:
 * a turn is stored after its answer goes out (and once fae's own copy of
 * the answer came, so that its record links it).
 */
export const untilStored = async (fae: Far, count: number, timeoutMs = 30_000): Promise<readonly StoredRecord[]> => {
  let records: readonly StoredRecord[] = [];
  const stored = await until(async () => {
    records = await storedRecords(fae);
    return records.length >= count;
  }, timeoutMs);
  if (!stored) throw Error(`only ${records.length} of ${count} records were stored`);
  return records;
};

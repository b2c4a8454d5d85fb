// What grew between two heap snapshots of one thread (the correspondents
// bench writes them with FAE_BENCH_SNAPSHOTS): the objects of the later
// snapshot whose ids the earlier lacks, their self sizes summed by
// constructor, and by the old structure that holds them (walking each new
// object's first strong retainer up to an object that was already there,
// then naming that one's retainers), so that a table growing per
// correspondent shows as one line.
//   node dist/test/bench/heap-diff.js BEFORE.heapsnapshot AFTER.heapsnapshot [ROWS]
import { readFileSync } from 'node:fs';

interface Snapshot {
  readonly snapshot: {
    readonly meta: {
      readonly node_fields: string[];
      readonly node_types: [string[], ...unknown[]];
      readonly edge_fields: string[];
      readonly edge_types: [string[], ...unknown[]];
    };
  };
  readonly nodes: number[];
  readonly edges: number[];
  readonly strings: string[];
}

/** The nodes of a snapshot, with each node's first strong retainer. */
const load = (path: string) => {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as Snapshot;
  const { meta } = raw.snapshot;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const [nType, nName, nId, nSize, nEdges] = ['type', 'name', 'id', 'self_size', 'edge_count'].map(f =>
    meta.node_fields.indexOf(f),
  );
  const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map(f => meta.edge_fields.indexOf(f));
  const count = raw.nodes.length / nf;
  const retainer = new Int32Array(count).fill(-1);
  const retainerEdge = new Array<string>(count);
  let edge = 0;
  for (let n = 0; n < count; n += 1) {
    for (let k = 0; k < raw.nodes[n * nf + nEdges]; k += 1, edge += ef) {
      const type = meta.edge_types[0][raw.edges[edge + eType]];
      if (type === 'weak' || type === 'shortcut') continue;
      const to = raw.edges[edge + eTo] / nf;
      if (retainer[to] !== -1) continue;
      retainer[to] = n;
      // Entries of one table group together: indices and numeric names read as [].
      const name = type === 'element' || type === 'hidden' ? '[]' : raw.strings[raw.edges[edge + eName]];
      retainerEdge[to] = /^\d+$/.test(name) ? '[]' : name;
    }
  }
  const at = (n: number, field: number) => raw.nodes[n * nf + field];
  return {
    count,
    id: (n: number) => at(n, nId),
    size: (n: number) => at(n, nSize),
    type: (n: number) => meta.node_types[0][at(n, nType)],
    label: (n: number) => `${meta.node_types[0][at(n, nType)]} ${raw.strings[at(n, nName)].slice(0, 40).replace(/\n.*/s, '')}`,
    retainer,
    retainerEdge,
  };
};

/** Who holds `node`: the first strong retainers, a few of them up. */
const holderPath = (heap: ReturnType<typeof load>, node: number, depth = 8) => {
  let path = `.${heap.retainerEdge[node]}`;
  for (let hop = 0, at = heap.retainer[node]; hop < depth && at !== -1; hop += 1, at = heap.retainer[at]) {
    path += ` <- ${heap.label(at)}${heap.retainer[at] === -1 ? '' : ` .${heap.retainerEdge[at]}`}`;
  }
  return path;
};

const sumInto = (sums: Map<string, { bytes: number; count: number }>, key: string, bytes: number) => {
  const entry = sums.get(key) ?? { bytes: 0, count: 0 };
  entry.bytes += bytes;
  entry.count += 1;
  sums.set(key, entry);
};

const print = (title: string, sums: Map<string, { bytes: number; count: number }>, rows: number) => {
  console.log(`\n# ${title}`);
  const sorted = [...sums.entries()].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, rows);
  for (const [key, { bytes, count }] of sorted) console.log(`${String(bytes).padStart(10)} ${String(count).padStart(7)}  ${key}`);
};

const main = () => {
  const [beforePath, afterPath, rowsText] = process.argv.slice(2);
  const rows = Number(rowsText ?? 40);
  const before = load(beforePath);
  const oldIds = new Set<number>();
  for (let n = 0; n < before.count; n += 1) oldIds.add(before.id(n));
  const after = load(afterPath);
  const byName = new Map<string, { bytes: number; count: number }>();
  const byHolder = new Map<string, { bytes: number; count: number }>();
  let total = 0;
  for (let n = 0; n < after.count; n += 1) {
    if (oldIds.has(after.id(n))) continue;
    total += after.size(n);
    sumInto(byName, after.label(n), after.size(n));
    // Up the first strong retainers to the newest object an old one holds:
    // what grew is named by the old structure it hangs from.
    let node = n;
    for (let hops = 0; hops < 60 && after.retainer[node] !== -1 && !oldIds.has(after.id(after.retainer[node])); hops += 1) {
      node = after.retainer[node];
    }
    // Compiled code comes and goes with V8's tiers; it is counted apart.
    if (after.type(n) !== 'code') sumInto(byHolder, holderPath(after, node), after.size(n));
  }
  console.log(`new objects: ${total} bytes`);
  print('new bytes by constructor', byName, rows);
  print('new bytes (code aside) by the old structure they hang from', byHolder, rows);
};

main();

// What grew between two heap snapshots of one thread (the correspondents
// bench writes them with FAE_BENCH_SNAPSHOTS): the objects of the later
// snapshot whose ids the earlier lacks, their self sizes summed by
// constructor, and by the old object that holds them (walking each new
// object's first strong retainer up to an object that was already there),
// so that a table growing per correspondent shows as one line.
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
      const name = raw.edges[edge + eName];
      retainerEdge[to] = type === 'element' || type === 'hidden' ? `[${name}]` : raw.strings[name];
    }
  }
  const at = (n: number, field: number) => raw.nodes[n * nf + field];
  return {
    count,
    id: (n: number) => at(n, nId),
    size: (n: number) => at(n, nSize),
    label: (n: number) => `${meta.node_types[0][at(n, nType)]} ${raw.strings[at(n, nName)].slice(0, 60)}`,
    retainer,
    retainerEdge,
  };
};

/** Who holds `node`: the first strong retainers, a few of them up. */
const holderPath = (heap: ReturnType<typeof load>, node: number, depth = 4) => {
  let path = '';
  for (let hop = 0, at = node; hop < depth && heap.retainer[at] !== -1; hop += 1, at = heap.retainer[at]) {
    path += ` <-.${heap.retainerEdge[at]}- ${heap.label(heap.retainer[at])}`;
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
    // Up the first strong retainers to an object that was there before.
    let path = '';
    let node = n;
    for (let hops = 0; hops < 40 && after.retainer[node] !== -1 && !oldIds.has(after.id(after.retainer[node])); hops += 1) {
      if (hops < 3) path = `${after.retainerEdge[node]} <- ${after.label(after.retainer[node])}${path === '' ? '' : ` <- ${path}`}`;
      node = after.retainer[node];
    }
    sumInto(byHolder, `${after.label(node)} ${holderPath(after, node)}`, after.size(n));
  }
  console.log(`new objects: ${total} bytes`);
  print('new bytes by constructor', byName, rows);
  print('new bytes by the newest object holding them, and who holds that', byHolder, rows);
};

main();
